//! The span-group registry: namespaces, the groups they own and their presets.
//! Mirrors `src/backends/js/registry.ts` step for step (JS `Map` order ⇔ `IndexMap` order).
//!
//! Names are interned ([`Symbols`]) and kept as ids: a registration is a list of ids, a group's
//! owners are namespace ids (one inline, more in a side map), membership is an array indexed
//! by id, and the merged presets are computed once per registry change and then reused.

use std::borrow::Cow;
use std::cell::OnceCell;

use indexmap::{IndexMap, IndexSet};
use rustc_hash::{FxBuildHasher, FxHashMap};

use crate::messages;
use crate::normalize::normalize;
use crate::symbols::{Sym, SymSet, Symbols};
use crate::Diagnostic;

/// The preset every registry has: every registered group. Reserved as a group and preset name.
pub const ALL: &str = "all";

/// A preset as passed to `register`: its name and members, both as given.
pub type PresetEntry = (String, Vec<String>);

/// Owned names as given to `register`, borrowed for `register_names`.
pub(crate) fn borrow_names<'a>(
    groups: &'a [String],
    presets: Option<&'a [PresetEntry]>,
) -> (Vec<&'a str>, Vec<(&'a str, Vec<&'a str>)>) {
    let groups = groups.iter().map(String::as_str).collect();
    let presets = presets
        .unwrap_or_default()
        .iter()
        .map(|(name, members)| (name.as_str(), members.iter().map(String::as_str).collect()))
        .collect();
    (groups, presets)
}

type FxIndexMap<K, V> = IndexMap<K, V, FxBuildHasher>;

/// No id: `owner[group]` of a name that is not a registered group.
const NONE: Sym = Sym::MAX;

#[derive(Debug)]
struct Registration {
    /// Normalised, deduplicated, in the order given.
    groups: Vec<Sym>,
    /// Normalised preset name → normalised members (deduplicated, in the order given).
    /// A later duplicate name wins but keeps the first one's position, as a JS `Map` does.
    presets: Vec<(Sym, Vec<Sym>)>,
}

/// A successful registration.
#[derive(Debug)]
pub struct Registered {
    /// The namespace's groups, normalised (ids; [`Registry::name`] gives the text).
    pub groups: Vec<Sym>,
    /// Shared groups, then preset members nobody registers.
    pub warnings: Vec<Diagnostic>,
}

/// A spec resolved against the registry.
#[derive(Debug)]
pub struct Resolved {
    /// Groups in order of first selection.
    pub enabled: Vec<String>,
    /// Tokens that name nothing here, deduplicated, in spec order.
    pub pending: Vec<String>,
    /// How many non-empty tokens the spec had (duplicates counted).
    pub tokens: usize,
}

/// [`Resolved`] with the enabled groups as ids.
#[derive(Debug)]
pub struct ResolvedIds {
    pub enabled: Vec<Sym>,
    pub pending: Vec<String>,
    pub tokens: usize,
}

/// The presets of every registration merged by name (`all` aside: it is `order`).
#[derive(Debug, Default)]
struct Merged {
    /// In order of first appearance; members registered, deduplicated, in first appearance.
    presets: Vec<(Sym, Vec<Sym>)>,
    /// Preset name → position in `presets`.
    index: FxHashMap<Sym, usize>,
}

/// Marks ids as seen without clearing between uses: an id is marked when its entry equals
/// the current stamp, and every `next` starts a fresh, empty set.
#[derive(Debug, Default)]
struct Marks {
    stamps: Vec<u32>,
    stamp: u32,
}

impl Marks {
    fn next(&mut self, ids: usize) {
        if self.stamps.len() < ids {
            self.stamps.resize(ids, 0);
        }
        if self.stamp == u32::MAX {
            self.stamps.fill(0);
            self.stamp = 0;
        }
        self.stamp += 1;
    }

    /// Mark `sym`; true when it was not marked yet (ids must be below the `next` bound).
    fn insert(&mut self, sym: Sym) -> bool {
        let slot = &mut self.stamps[sym as usize];
        let fresh = *slot != self.stamp;
        *slot = self.stamp;
        fresh
    }

    fn contains(&self, sym: Sym) -> bool {
        self.stamps.get(sym as usize) == Some(&self.stamp)
    }

    /// Keep the first occurrence of each id, in order (in place).
    fn dedupe(&mut self, ids: usize, mut syms: Vec<Sym>) -> Vec<Sym> {
        self.next(ids);
        syms.retain(|&sym| self.insert(sym));
        syms
    }
}

/// Ids in its fields print as numbers; `names` (first) maps each id to its text.
#[derive(Debug, Default)]
pub struct Registry {
    /// Every name the registry stores (and the state's pinned names), interned.
    names: Symbols,
    /// Registration order; an override keeps the namespace's position.
    by_namespace: FxIndexMap<Sym, Registration>,
    /// Registered groups in the order they first became registered (a group whose last owner
    /// leaves is removed, so re-registering it moves it to the end).
    order: Vec<Sym>,
    /// Indexed by id: a registered group's first owning namespace, `NONE` for any other name.
    owner: Vec<Sym>,
    /// The further owners of groups that have more than one.
    more_owners: FxHashMap<Sym, Vec<Sym>>,
    /// The merged presets, computed on first use after each registry change.
    merged: OnceCell<Merged>,
    /// Scratch sets for `register` (deduplication, and the new registration's own groups).
    seen: Marks,
    own: Marks,
}

impl Registry {
    /// The text of an interned name.
    pub fn name(&self, sym: Sym) -> &str {
        self.names.name(sym)
    }

    /// Intern a name as given (the state's pinned names; no normalisation).
    pub fn intern(&mut self, name: &str) -> Sym {
        self.names.intern(name)
    }

    /// The id of a name, if it was ever interned.
    pub fn lookup(&self, name: &str) -> Option<Sym> {
        self.names.get(name)
    }

    /// Validate, then replace or add; an `Err` leaves everything unchanged. Names are
    /// borrowed as given (`presets`: `[]` for none); [`State::register`] takes owned ones.
    ///
    /// [`State::register`]: crate::State::register
    pub fn register_names(
        &mut self,
        namespace: &str,
        groups: &[&str],
        presets: &[(&str, Vec<&str>)],
        allow_override: bool,
    ) -> Result<Registered, Diagnostic> {
        if namespace.is_empty() {
            return Err(messages::invalid_namespace());
        }
        // The reference's order (SPEC.md §2): every group name is checked for emptiness before
        // any is checked for `all`, and "already registered" comes before the preset names.
        let normalized_groups: Vec<Cow<str>> = groups.iter().map(|raw| normalize(raw)).collect();
        if let Some(i) = normalized_groups.iter().position(|name| name.is_empty()) {
            return Err(messages::empty_group_name(namespace, groups[i]));
        }
        if let Some(i) = normalized_groups.iter().position(|name| &**name == ALL) {
            return Err(messages::reserved_group_name(namespace, groups[i]));
        }
        let existing = self.names.get(namespace);
        if existing.is_some_and(|ns| self.by_namespace.contains_key(&ns)) && !allow_override {
            return Err(messages::namespace_registered(namespace));
        }
        let mut normalized_presets: Vec<(Cow<str>, Vec<Cow<str>>)> =
            Vec::with_capacity(presets.len());
        for (raw, members) in presets {
            let name = normalize(raw);
            if name == ALL {
                return Err(messages::reserved_preset_name(namespace, raw));
            }
            normalized_presets.push((name, members.iter().map(|m| normalize(m)).collect()));
        }

        // Valid: from here on the call succeeds, so interning its names changes nothing visible.
        let (count, bytes) = normalized_presets.iter().fold(
            (1 + normalized_groups.len(), namespace.len()),
            |(count, bytes), (name, members)| {
                (
                    count + 1 + members.len(),
                    bytes + name.len() + members.iter().map(|m| m.len()).sum::<usize>(),
                )
            },
        );
        let bytes = bytes + normalized_groups.iter().map(|g| g.len()).sum::<usize>();
        self.names.reserve(count, bytes);
        let ns = self.names.intern(namespace);
        let group_ids: Vec<Sym> = normalized_groups
            .iter()
            .map(|name| self.names.intern(name))
            .collect();
        let preset_ids: Vec<(Sym, Vec<Sym>)> = normalized_presets
            .iter()
            .map(|(name, members)| {
                let name = self.names.intern(name);
                (name, members.iter().map(|m| self.names.intern(m)).collect())
            })
            .collect();
        let ids = self.names.len();
        let groups = self.seen.dedupe(ids, group_ids);
        let preset_entries: Vec<(Sym, Vec<Sym>)> = preset_ids
            .into_iter()
            .map(|(name, members)| (name, self.seen.dedupe(ids, members)))
            .collect();
        if self.owner.len() < ids {
            self.owner.resize(ids, NONE);
        }

        let mut warnings = Vec::new();
        if !allow_override {
            warnings.extend(self.shared_group_warnings(ns, &groups));
        }
        warnings.extend(self.unregistered_member_warnings(ns, &groups, &preset_entries));

        self.drop_ownership(ns);
        let registration = Registration {
            groups: groups.clone(),
            presets: collapse_presets(preset_entries),
        };
        // Inserting an existing key keeps its position: an override stays where it was.
        self.by_namespace.insert(ns, registration);
        for &group in &groups {
            self.add_owner(group, ns);
        }
        self.merged = OnceCell::new();
        Ok(Registered { groups, warnings })
    }

    pub fn unregister(&mut self, namespace: &str) -> Result<(), Diagnostic> {
        let Some(ns) = self
            .names
            .get(namespace)
            .filter(|ns| self.by_namespace.contains_key(ns))
        else {
            return Err(messages::namespace_not_registered(
                namespace,
                &self.namespaces(),
            ));
        };
        self.drop_ownership(ns);
        self.by_namespace.shift_remove(&ns);
        self.merged = OnceCell::new();
        Ok(())
    }

    /// Forget every registration; interned names stay (the state's ids refer to them).
    pub fn clear(&mut self) {
        for &group in &self.order {
            self.owner[group as usize] = NONE;
        }
        self.order.clear();
        self.more_owners.clear();
        self.by_namespace.clear();
        self.merged = OnceCell::new();
    }

    pub fn has_groups(&self) -> bool {
        !self.order.is_empty()
    }

    fn is_group(&self, sym: Sym) -> bool {
        self.owner.get(sym as usize).is_some_and(|&o| o != NONE)
    }

    /// Registered groups, in the order they first became registered.
    pub fn groups(&self) -> Vec<String> {
        self.to_strings(&self.order)
    }

    /// Registered groups as ids, in the order they first became registered.
    pub fn group_ids(&self) -> &[Sym] {
        &self.order
    }

    /// Registered namespaces, sorted by code point (Rust's `str` order).
    pub fn namespaces(&self) -> Vec<String> {
        let mut namespaces: Vec<&str> = self.by_namespace.keys().map(|&ns| self.name(ns)).collect();
        namespaces.sort_unstable();
        namespaces.into_iter().map(str::to_owned).collect()
    }

    /// Presets merged across namespaces (union by name, members kept only while registered),
    /// `all` first, then in order of first appearance. A preset pruned to empty stays as a key.
    pub fn presets(&self) -> IndexMap<String, Vec<String>> {
        let merged = self.merged();
        let mut presets = IndexMap::with_capacity(merged.presets.len() + 1);
        presets.insert(ALL.to_owned(), self.groups());
        for (name, members) in &merged.presets {
            presets.insert(self.name(*name).to_owned(), self.to_strings(members));
        }
        presets
    }

    /// The merged preset names, `all` first.
    pub fn preset_names(&self) -> Vec<String> {
        std::iter::once(ALL.to_owned())
            .chain(
                self.merged()
                    .presets
                    .iter()
                    .map(|(name, _)| self.name(*name).to_owned()),
            )
            .collect()
    }

    /// Presets win over a group of the same name; `all` is a preset, so never pending.
    pub fn resolve(&self, spec: &str) -> Resolved {
        let resolved = self.resolve_ids(spec);
        Resolved {
            enabled: self.to_strings(&resolved.enabled),
            pending: resolved.pending,
            tokens: resolved.tokens,
        }
    }

    /// [`Registry::resolve`] with the enabled groups as ids.
    pub fn resolve_ids(&self, spec: &str) -> ResolvedIds {
        let mut enabled = Vec::new();
        let mut selected = SymSet::with_capacity(self.names.len());
        let mut pending: IndexSet<Cow<str>, FxBuildHasher> = IndexSet::default();
        let mut tokens = 0;
        let mut select = |sym: Sym| {
            if selected.insert(sym) {
                enabled.push(sym);
            }
        };
        for raw in spec.split(',') {
            let token = normalize(raw);
            if token.is_empty() {
                continue;
            }
            tokens += 1;
            if token == ALL {
                self.order.iter().for_each(|&sym| select(sym));
                continue;
            }
            match self.names.get(&token) {
                Some(sym) => {
                    let merged = self.merged();
                    if let Some(&i) = merged.index.get(&sym) {
                        merged.presets[i].1.iter().for_each(|&m| select(m));
                    } else if self.is_group(sym) {
                        select(sym);
                    } else {
                        pending.insert(token);
                    }
                }
                None => {
                    pending.insert(token);
                }
            }
        }
        ResolvedIds {
            enabled,
            pending: pending.into_iter().map(Cow::into_owned).collect(),
            tokens,
        }
    }

    fn to_strings(&self, syms: &[Sym]) -> Vec<String> {
        syms.iter().map(|&sym| self.name(sym).to_owned()).collect()
    }

    fn merged(&self) -> &Merged {
        self.merged.get_or_init(|| {
            let mut merged = Merged::default();
            let mut sources: Vec<Vec<&[Sym]>> = Vec::new();
            for registration in self.by_namespace.values() {
                for (name, members) in &registration.presets {
                    let i = *merged.index.entry(*name).or_insert_with(|| {
                        merged.presets.push((*name, Vec::new()));
                        sources.push(Vec::new());
                        sources.len() - 1
                    });
                    sources[i].push(members);
                }
            }
            let mut seen = Marks::default();
            for ((_, into), sources) in merged.presets.iter_mut().zip(sources) {
                seen.next(self.names.len());
                for members in sources {
                    into.extend(
                        members
                            .iter()
                            .copied()
                            .filter(|&m| self.is_group(m) && seen.insert(m)),
                    );
                }
            }
            merged
        })
    }

    fn owner_count(&self, group: Sym) -> usize {
        if !self.is_group(group) {
            return 0;
        }
        1 + self.more_owners.get(&group).map_or(0, Vec::len)
    }

    fn owners(&self, group: Sym) -> impl Iterator<Item = Sym> + '_ {
        let first = self
            .owner
            .get(group as usize)
            .copied()
            .filter(|&o| o != NONE);
        first
            .into_iter()
            .chain(self.more_owners.get(&group).into_iter().flatten().copied())
    }

    /// One warning per other namespace, in registration order, naming the groups it shares
    /// (found through the owners, so the cost follows the new groups, not the registry size).
    fn shared_group_warnings(&self, namespace: Sym, groups: &[Sym]) -> Vec<Diagnostic> {
        let mut shared_with: FxHashMap<Sym, Vec<String>> = FxHashMap::default();
        for &group in groups {
            for owner in self.owners(group) {
                if owner != namespace {
                    shared_with
                        .entry(owner)
                        .or_default()
                        .push(self.name(group).to_owned());
                }
            }
        }
        let mut warnings = Vec::new();
        if shared_with.is_empty() {
            return warnings;
        }
        for other in self.by_namespace.keys() {
            if let Some(shared) = shared_with.get(other) {
                warnings.push(messages::group_shared(
                    self.name(namespace),
                    self.name(*other),
                    shared,
                ));
            }
        }
        warnings
    }

    /// One warning per preset entry as given, naming the members nobody (else) registers.
    /// Checked against the registry as it will be once this registration replaces any
    /// previous one of the same namespace (an override drops its old groups).
    fn unregistered_member_warnings(
        &mut self,
        namespace: Sym,
        groups: &[Sym],
        preset_entries: &[(Sym, Vec<Sym>)],
    ) -> Vec<Diagnostic> {
        let mut warnings = Vec::new();
        if preset_entries.iter().all(|(_, members)| members.is_empty()) {
            return warnings;
        }
        self.own.next(self.names.len());
        for &group in groups {
            self.own.insert(group);
        }
        let known = |member: Sym| {
            self.own.contains(member)
                || match self.owner_count(member) {
                    0 => false,
                    1 => self.owner[member as usize] != namespace,
                    _ => true,
                }
        };
        for (preset, members) in preset_entries {
            let mut missing: Vec<String> = members
                .iter()
                .filter(|&&m| !known(m))
                .map(|&m| self.name(m).to_owned())
                .collect();
            if !missing.is_empty() {
                missing.sort();
                warnings.push(messages::preset_member_unregistered(
                    self.name(namespace),
                    self.name(*preset),
                    &missing,
                ));
            }
        }
        warnings
    }

    fn add_owner(&mut self, group: Sym, namespace: Sym) {
        let first = &mut self.owner[group as usize];
        if *first == NONE {
            *first = namespace;
            self.order.push(group);
        } else if *first != namespace {
            let more = self.more_owners.entry(group).or_default();
            if !more.contains(&namespace) {
                more.push(namespace);
            }
        }
    }

    /// Remove `namespace` from the group's owners; true when none is left.
    fn remove_owner(&mut self, group: Sym, namespace: Sym) -> bool {
        let first = self.owner[group as usize];
        if first == namespace {
            match self.more_owners.get_mut(&group) {
                Some(more) => {
                    self.owner[group as usize] = more.swap_remove(0);
                    if more.is_empty() {
                        self.more_owners.remove(&group);
                    }
                }
                None => self.owner[group as usize] = NONE,
            }
        } else if let Some(more) = self.more_owners.get_mut(&group) {
            more.retain(|&o| o != namespace);
            if more.is_empty() {
                self.more_owners.remove(&group);
            }
        }
        self.owner[group as usize] == NONE
    }

    fn drop_ownership(&mut self, namespace: Sym) {
        let Some(registration) = self.by_namespace.get_mut(&namespace) else {
            return;
        };
        let groups = std::mem::take(&mut registration.groups);
        let mut orphaned = false;
        for &group in &groups {
            orphaned |= self.remove_owner(group, namespace);
        }
        self.by_namespace[&namespace].groups = groups;
        // One pass that keeps the other groups in first-registration order. Removing each
        // orphan on its own would shift the list once per group: quadratic, 35 s to
        // unregister a namespace of 100k groups (the twin's Map.delete takes 0.1 s).
        if orphaned {
            let owner = &self.owner;
            self.order.retain(|&group| owner[group as usize] != NONE);
        }
    }
}

/// A registration's presets from its entries as given: a later duplicate name replaces the
/// members but keeps the first one's position, as inserting into a JS `Map` does.
fn collapse_presets(entries: Vec<(Sym, Vec<Sym>)>) -> Vec<(Sym, Vec<Sym>)> {
    let mut presets: Vec<(Sym, Vec<Sym>)> = Vec::with_capacity(entries.len());
    // A namespace has a few presets: a linear search, unless it has many.
    let mut at: Option<FxHashMap<Sym, usize>> = (entries.len() > 16)
        .then(|| FxHashMap::with_capacity_and_hasher(entries.len(), FxBuildHasher));
    for (name, members) in entries {
        let found = match &at {
            Some(at) => at.get(&name).copied(),
            None => presets.iter().position(|(other, _)| *other == name),
        };
        match found {
            Some(i) => presets[i].1 = members,
            None => {
                if let Some(at) = &mut at {
                    at.insert(name, presets.len());
                }
                presets.push((name, members));
            }
        }
    }
    presets
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The tests' shorthand: register owned names, as `State::register` does.
    trait RegisterOwned {
        fn register(
            &mut self,
            namespace: &str,
            groups: &[String],
            presets: Option<&[PresetEntry]>,
            allow_override: bool,
        ) -> Result<Registered, Diagnostic>;
    }

    impl RegisterOwned for Registry {
        fn register(
            &mut self,
            namespace: &str,
            groups: &[String],
            presets: Option<&[PresetEntry]>,
            allow_override: bool,
        ) -> Result<Registered, Diagnostic> {
            let (groups, presets) = borrow_names(groups, presets);
            self.register_names(namespace, &groups, &presets, allow_override)
        }
    }

    fn names(values: &[&str]) -> Vec<String> {
        values.iter().map(|v| (*v).to_owned()).collect()
    }

    fn preset(name: &str, members: &[&str]) -> PresetEntry {
        (name.to_owned(), names(members))
    }

    fn code(result: Result<Registered, Diagnostic>) -> &'static str {
        result.err().map_or("ok", |d| d.code)
    }

    #[test]
    fn an_override_keeps_the_namespace_position() {
        let mut r = Registry::default();
        r.register("b", &names(&["x"]), None, false).unwrap();
        r.register("a", &names(&["y"]), Some(&[preset("p", &["y"])]), false)
            .unwrap();
        r.register("b", &names(&["z"]), Some(&[preset("q", &["z"])]), true)
            .unwrap();
        let presets: Vec<String> = r.presets().into_keys().collect();
        // b's presets still come before a's: b kept its registration slot.
        assert_eq!(presets, ["all", "q", "p"]);
        // x lost its only owner and z arrived last.
        assert_eq!(r.groups(), ["y", "z"]);
    }

    #[test]
    fn unregister_then_register_moves_to_the_end() {
        let mut r = Registry::default();
        r.register("b", &names(&["x"]), Some(&[preset("p", &["x"])]), false)
            .unwrap();
        r.register("a", &names(&["y"]), Some(&[preset("q", &["y"])]), false)
            .unwrap();
        r.unregister("b").unwrap();
        r.register("b", &names(&["x"]), Some(&[preset("p", &["x"])]), false)
            .unwrap();
        assert_eq!(
            r.presets().into_keys().collect::<Vec<_>>(),
            ["all", "q", "p"]
        );
        assert_eq!(r.groups(), ["y", "x"]);
        assert_eq!(r.namespaces(), ["a", "b"]);
    }

    #[test]
    fn a_later_duplicate_preset_wins_at_the_first_position() {
        let mut r = Registry::default();
        let presets = [
            preset("Default", &["a"]),
            preset("other", &["b"]),
            preset(" default ", &["b", "B"]),
        ];
        let registered = r
            .register("ns", &names(&["a", "b"]), Some(&presets), false)
            .unwrap();
        assert!(registered.warnings.is_empty());
        let merged: Vec<(String, Vec<String>)> = r.presets().into_iter().collect();
        assert_eq!(merged[1], ("default".to_owned(), names(&["b"])));
        assert_eq!(merged[2], ("other".to_owned(), names(&["b"])));
    }

    #[test]
    fn merged_members_follow_first_appearance() {
        let mut r = Registry::default();
        r.register(
            "a",
            &names(&["x", "y"]),
            Some(&[preset("p", &["y", "x"])]),
            false,
        )
        .unwrap();
        r.register(
            "b",
            &names(&["z"]),
            Some(&[preset("p", &["z", "x"])]),
            false,
        )
        .unwrap();
        assert_eq!(r.presets()["p"], ["y", "x", "z"]);
    }

    #[test]
    fn validation_order_matches_the_twin() {
        let mut r = Registry::default();
        r.register("ns", &names(&["a"]), None, false).unwrap();
        let before = (r.groups(), r.namespaces(), r.presets());
        assert_eq!(
            code(r.register("", &names(&[""]), None, false)),
            "ERR_NEMO_LENS_INVALID_NAMESPACE"
        );
        // The reference's order: empty group names (all of them), then a group named `all`,
        // then the namespace collision, then preset names.
        assert_eq!(
            code(r.register("ns", &names(&["ALL", " "]), None, false)),
            "ERR_NEMO_LENS_EMPTY_GROUP_NAME"
        );
        assert_eq!(
            code(r.register("ns", &names(&[" ", "all"]), None, false)),
            "ERR_NEMO_LENS_EMPTY_GROUP_NAME"
        );
        assert_eq!(
            code(r.register("other", &names(&["b", "All"]), None, false)),
            "ERR_NEMO_LENS_RESERVED_GROUP_NAME"
        );
        let reserved = [preset(" All ", &[])];
        assert_eq!(
            code(r.register("ns", &names(&["ALL"]), Some(&reserved), false)),
            "ERR_NEMO_LENS_RESERVED_GROUP_NAME"
        );
        assert_eq!(
            code(r.register("ns", &names(&["b"]), Some(&reserved), false)),
            "ERR_NEMO_LENS_NAMESPACE_REGISTERED"
        );
        assert_eq!(
            code(r.register("ns", &names(&["b"]), Some(&reserved), true)),
            "ERR_NEMO_LENS_RESERVED_PRESET_NAME"
        );
        assert_eq!(
            code(r.register("new", &names(&["b"]), Some(&reserved), false)),
            "ERR_NEMO_LENS_RESERVED_PRESET_NAME"
        );
        assert_eq!((r.groups(), r.namespaces(), r.presets()), before);
    }

    #[test]
    fn shared_groups_warn_once_per_other_namespace_in_registration_order() {
        let mut r = Registry::default();
        r.register("z", &names(&["a", "b"]), None, false).unwrap();
        r.register("y", &names(&["b"]), None, false).unwrap();
        let warned = r
            .register("x", &names(&["b", "a", "c"]), None, false)
            .unwrap();
        let messages: Vec<&str> = warned.warnings.iter().map(|d| d.message.as_str()).collect();
        assert_eq!(messages.len(), 2);
        assert!(messages[0].contains("registers \"b\", \"a\", also registered by namespace \"z\""));
        assert!(messages[1].contains("registers \"b\", also registered by namespace \"y\""));
        let silent = r.register("w", &names(&["a"]), None, true).unwrap();
        assert!(silent.warnings.is_empty());
    }

    #[test]
    fn unregistered_members_are_listed_sorted_per_preset_entry() {
        let mut r = Registry::default();
        r.register("mega", &names(&["step"]), None, false).unwrap();
        let presets = [
            preset("p", &["zeta", "Step", "alpha", "zeta"]),
            preset("P", &["beta"]),
        ];
        let warned = r
            .register("rl", &names(&[]), Some(&presets), false)
            .unwrap();
        assert_eq!(warned.warnings.len(), 2);
        assert!(warned.warnings[0]
            .message
            .contains("names \"alpha\", \"zeta\", which"));
        assert!(warned.warnings[1].message.contains("names \"beta\", which"));
    }

    #[test]
    fn an_override_forgets_its_own_old_groups_when_checking_members() {
        let mut r = Registry::default();
        r.register("mega", &names(&["step", "layer"]), None, false)
            .unwrap();
        r.register("rl", &names(&["layer"]), None, false).unwrap();
        let presets = [preset("default", &["step", "layer"])];
        let warned = r
            .register("mega", &names(&["job"]), Some(&presets), true)
            .unwrap();
        // step was mega's alone, so it goes; layer survives through rl.
        assert_eq!(warned.warnings.len(), 1);
        assert!(warned.warnings[0].message.contains("names \"step\", which"));
        assert_eq!(r.presets()["default"], ["layer"]);
    }

    #[test]
    fn unregistering_many_groups_keeps_the_survivors_in_order_and_is_linear() {
        let mut r = Registry::default();
        let many: Vec<String> = (0..100_000).map(|i| format!("g{i}")).collect();
        r.register("big", &many, None, false).unwrap();
        r.register("small", &names(&["g5", "x", "g99999"]), None, true)
            .unwrap();
        let started = std::time::Instant::now();
        r.unregister("big").unwrap();
        assert_eq!(r.groups(), ["g5", "g99999", "x"]);
        r.register("big", &many, None, false).unwrap();
        r.register("big", &many[1..], None, true).unwrap();
        assert_eq!(r.groups().len(), 100_000 - 1 + 1);
        assert_eq!(r.groups()[..3], ["g5", "g99999", "x"]);
        // Quadratic removal took minutes here in a debug build; linear takes milliseconds.
        assert!(started.elapsed() < std::time::Duration::from_secs(20));
    }

    #[test]
    fn resolve_prefers_presets_and_never_pends_all() {
        let mut r = Registry::default();
        r.register("mega", &names(&["default", "step"]), None, false)
            .unwrap();
        r.register(
            "rl",
            &names(&["rollout"]),
            Some(&[preset("default", &["rollout"])]),
            false,
        )
        .unwrap();
        let resolved = r.resolve("default, ALL ,typo,typo,step");
        assert_eq!(resolved.enabled, ["rollout", "default", "step"]);
        assert_eq!(resolved.pending, ["typo"]);
        assert_eq!(resolved.tokens, 5);
    }
}
