//! Interned names: every distinct name the registry stores gets a dense `u32` id once, its
//! text appended to one buffer. The registry and the state then keep and compare ids only,
//! so a name is hashed once per call that mentions it and never cloned into another map.
//! (The twin needs no such table: a JS string is shared by reference and hashed once by V8.)

use std::fmt;
use std::hash::BuildHasher;

use hashbrown::HashTable;
use rustc_hash::FxBuildHasher;

/// An interned name.
pub type Sym = u32;

/// The text of `sym`: from where the previous name ends to where its own does. A free
/// function, so that `reserve` and `intern` can use it while they borrow `table` mutably.
fn slice<'a>(text: &'a str, ends: &[u32], sym: Sym) -> &'a str {
    let i = sym as usize;
    let start = if i == 0 { 0 } else { ends[i - 1] as usize };
    &text[start..ends[i] as usize]
}

#[derive(Default)]
pub struct Symbols {
    /// Every interned name, one after the other.
    text: String,
    /// `ends[sym]`: where the name ends in `text` (it starts where the previous one ends).
    ends: Vec<u32>,
    /// Ids, found by hashing the name they stand for.
    table: HashTable<Sym>,
    hasher: FxBuildHasher,
}

/// Each id with its text (`{0: "step", 1: "layer"}`), so the ids in a `Registry` or `State`
/// dump can be read; the buffer and the hash table say nothing useful.
impl fmt::Debug for Symbols {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_map()
            .entries((0..self.len() as Sym).map(|sym| (sym, self.name(sym))))
            .finish()
    }
}

impl Symbols {
    pub fn len(&self) -> usize {
        self.ends.len()
    }

    pub fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }

    pub fn name(&self, sym: Sym) -> &str {
        slice(&self.text, &self.ends, sym)
    }

    /// Room for `names` more names of `bytes` bytes in all, so that interning a batch grows
    /// each buffer at most once.
    pub fn reserve(&mut self, names: usize, bytes: usize) {
        self.text.reserve(bytes);
        self.ends.reserve(names);
        let Self {
            text,
            ends,
            table,
            hasher,
        } = self;
        table.reserve(names, |&sym| hasher.hash_one(slice(text, ends, sym)));
    }

    pub fn get(&self, name: &str) -> Option<Sym> {
        let hash = self.hasher.hash_one(name);
        self.table
            .find(hash, |&sym| self.name(sym) == name)
            .copied()
    }

    pub fn intern(&mut self, name: &str) -> Sym {
        let hash = self.hasher.hash_one(name);
        let Self {
            text,
            ends,
            table,
            hasher,
        } = self;
        if let Some(&sym) = table.find(hash, |&sym| slice(text, ends, sym) == name) {
            return sym;
        }
        let sym = Sym::try_from(ends.len()).expect("fewer than 2^32 names");
        table.insert_unique(hash, sym, |&other| {
            hasher.hash_one(slice(text, ends, other))
        });
        text.push_str(name);
        ends.push(u32::try_from(text.len()).expect("names total under 4 GiB"));
        sym
    }
}

/// A set of ids as one bit per id; `insert` says whether the id was new.
#[derive(Default, Clone, PartialEq, Eq)]
pub struct SymSet {
    words: Vec<u64>,
}

/// The ids in the set, ascending (`{0, 3}`), rather than the words that hold them.
impl fmt::Debug for SymSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let ids = self.words.iter().enumerate().flat_map(|(word, &bits)| {
            (0..64u32)
                .filter(move |bit| bits & (1 << bit) != 0)
                .map(move |bit| word as Sym * 64 + bit)
        });
        f.debug_set().entries(ids).finish()
    }
}

impl SymSet {
    pub fn with_capacity(ids: usize) -> Self {
        Self {
            words: vec![0; ids.div_ceil(64)],
        }
    }

    pub fn insert(&mut self, sym: Sym) -> bool {
        let (word, bit) = (sym as usize / 64, sym % 64);
        if word >= self.words.len() {
            self.words.resize(word + 1, 0);
        }
        let fresh = self.words[word] & (1 << bit) == 0;
        self.words[word] |= 1 << bit;
        fresh
    }

    pub fn contains(&self, sym: Sym) -> bool {
        self.words
            .get(sym as usize / 64)
            .is_some_and(|word| word & (1 << (sym % 64)) != 0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn debug_shows_names_and_ids_not_buffers() {
        let mut s = Symbols::default();
        s.intern("step");
        s.intern("layer");
        assert_eq!(format!("{s:?}"), r#"{0: "step", 1: "layer"}"#);
        let mut set = SymSet::default();
        for sym in [64, 0, 3] {
            set.insert(sym);
        }
        assert_eq!(format!("{set:?}"), "{0, 3, 64}");
    }

    #[test]
    fn ids_are_dense_and_names_round_trip() {
        let mut s = Symbols::default();
        assert_eq!(s.intern("step"), 0);
        assert_eq!(s.intern(""), 1);
        assert_eq!(s.intern("ΟΔΟΣ"), 2);
        assert_eq!(s.intern("step"), 0);
        assert_eq!(s.get(""), Some(1));
        assert_eq!(s.get("layer"), None);
        assert_eq!(s.name(2), "ΟΔΟΣ");
        assert_eq!(s.name(1), "");
        for i in 0..10_000 {
            s.intern(&format!("g{i}"));
        }
        assert_eq!(s.len(), 10_003);
        assert_eq!(s.get("g9999"), Some(10_002));
        assert_eq!(s.name(3), "g0");
    }

    #[test]
    fn sets_grow_on_demand() {
        let mut set = SymSet::with_capacity(0);
        assert!(set.insert(130));
        assert!(!set.insert(130));
        assert!(set.contains(130) && !set.contains(2) && !set.contains(9999));
    }
}
