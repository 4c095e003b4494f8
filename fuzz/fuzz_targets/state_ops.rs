//! The registry and resolver as a state machine: arbitrary operation sequences over names
//! that collide (a small pool of awkward names) or are arbitrary strings. No panic, and after
//! every operation the invariants of the contract hold:
//!   - a refused call changes nothing and warns nothing;
//!   - `presets()` starts with `all` = `groups()`, and every preset is a subset of it;
//!   - `resolve` never reports `all`, a preset or a registered group as pending, and only
//!     enables registered groups;
//!   - with a retained spec, `enabled()` is exactly what `resolve(spec)` enables;
//!   - namespaces come sorted, interned names are unique, and the bitset mirrors `enabled()`.
#![no_main]

use std::collections::{BTreeSet, HashSet};

use libfuzzer_sys::arbitrary::{self, Arbitrary};
use libfuzzer_sys::fuzz_target;
use nemo_lens_core::{Outcome, PresetEntry, State};

const POOL: &[&str] = &[
    "step",
    "Step",
    " STEP ",
    "layer",
    "job",
    "default",
    "per_step",
    "typo",
    "all",
    " All ",
    "",
    "  ",
    "\u{1c}x\u{1f}",
    "__proto__",
    "constructor",
    "\u{130}",
    "ΟΔΟΣ",
    "ß",
    "\u{feff}step",
    "a,b",
    "\u{85}",
    "😀",
];

#[derive(Arbitrary, Debug)]
enum Name {
    Pool(u8),
    Raw(String),
}

impl Name {
    fn get(&self) -> String {
        match self {
            Name::Pool(i) => POOL[*i as usize % POOL.len()].to_owned(),
            Name::Raw(s) => s.clone(),
        }
    }
}

fn names(list: &[Name]) -> Vec<String> {
    list.iter().map(Name::get).collect()
}

#[derive(Arbitrary, Debug)]
enum Op {
    Register(Name, Vec<Name>, Option<Vec<(Name, Vec<Name>)>>, bool),
    Unregister(Name),
    Clear,
    SetSpec(Vec<Name>),
    RawSpec(String),
    Pin(Vec<Name>),
    Setup(bool),
    Reset,
    Resolve(Vec<Name>),
}

type Snapshot = (
    Vec<String>,
    Vec<String>,
    Vec<(String, Vec<String>)>,
    Vec<String>,
    Vec<String>,
    usize,
);

fn snapshot(s: &State) -> Snapshot {
    (
        s.groups(),
        s.namespaces(),
        s.presets(),
        s.enabled(),
        s.pending(),
        s.name_count(),
    )
}

fn check(state: &State, spec: Option<&str>) {
    let groups = state.groups();
    let group_set: HashSet<&String> = groups.iter().collect();
    let presets = state.presets();
    assert_eq!(presets[0].0, "all");
    assert_eq!(presets[0].1, groups);
    let preset_names: HashSet<&String> = presets.iter().map(|(name, _)| name).collect();
    assert_eq!(preset_names.len(), presets.len(), "preset names unique");
    for (_, members) in &presets {
        assert!(members.iter().all(|m| group_set.contains(m)));
    }
    let namespaces = state.namespaces();
    assert!(namespaces.windows(2).all(|w| w[0] < w[1]));

    let interned = state.names(0);
    assert_eq!(interned.len(), state.name_count());
    assert_eq!(
        interned.iter().collect::<HashSet<_>>().len(),
        interned.len()
    );
    let mut bits = vec![u32::MAX; state.words_needed() + 1];
    state.write_enabled(&mut bits).unwrap();
    let enabled = state.enabled();
    let from_bits: Vec<String> = (0..interned.len())
        .filter(|&id| bits[id / 32] & (1 << (id % 32)) != 0)
        .map(|id| interned[id].clone())
        .collect();
    assert_eq!(from_bits, enabled, "bitset mirrors enabled() in id order");
    assert_eq!(
        *bits.last().unwrap(),
        0,
        "words past the needed ones are zeroed"
    );
    for name in &enabled {
        assert!(state.is_enabled(name));
    }

    if let Some(spec) = spec {
        let resolved = state.resolve(spec);
        let a: BTreeSet<&String> = resolved.enabled.iter().collect();
        let b: BTreeSet<&String> = enabled.iter().collect();
        assert_eq!(a, b, "a retained spec enables what it resolves to");
        assert_eq!(resolved.pending, state.pending());
    }
}

fn check_resolution(state: &State, spec: &str) {
    let resolved = state.resolve(spec);
    let groups: HashSet<String> = state.groups().into_iter().collect();
    let presets: HashSet<String> = state.presets().into_iter().map(|(n, _)| n).collect();
    assert!(resolved.enabled.iter().all(|g| groups.contains(g)));
    assert_eq!(
        resolved.enabled.iter().collect::<HashSet<_>>().len(),
        resolved.enabled.len()
    );
    assert_eq!(
        resolved.pending.iter().collect::<HashSet<_>>().len(),
        resolved.pending.len()
    );
    for token in &resolved.pending {
        assert!(token != "all" && !presets.contains(token) && !groups.contains(token));
        assert!(!token.is_empty() && !token.contains(','));
    }
}

fuzz_target!(|ops: Vec<Op>| {
    let mut state = State::new();
    let mut spec: Option<String> = None;
    for op in ops.iter().take(64) {
        let before = snapshot(&state);
        let outcome: Outcome = match op {
            Op::Register(ns, groups, presets, allow) => {
                let presets: Option<Vec<PresetEntry>> = presets
                    .as_ref()
                    .map(|list| list.iter().map(|(n, m)| (n.get(), names(m))).collect());
                state.register(&ns.get(), &names(groups), presets.as_deref(), *allow)
            }
            Op::Unregister(ns) => state.unregister(&ns.get()),
            Op::Clear => state.clear(),
            Op::SetSpec(tokens) => {
                let text = names(tokens).join(",");
                spec = (!text.is_empty()).then(|| text.clone());
                state.set_spec(&text)
            }
            Op::RawSpec(text) => {
                spec = (!text.is_empty()).then(|| text.clone());
                state.set_spec(text)
            }
            Op::Pin(list) => {
                spec = None;
                let pinned = names(list);
                let outcome = state.pin(&pinned);
                for name in &pinned {
                    assert!(state.is_enabled(name));
                }
                outcome
            }
            Op::Setup(done) => {
                state.set_setup_done(*done);
                Outcome::default()
            }
            Op::Reset => {
                spec = None;
                state.reset();
                assert!(state.groups().is_empty() && state.enabled().is_empty());
                Outcome::default()
            }
            Op::Resolve(tokens) => {
                let text = names(tokens).join(",");
                let before_resolve = snapshot(&state);
                check_resolution(&state, &text);
                assert_eq!(snapshot(&state), before_resolve, "resolve changes nothing");
                Outcome::default()
            }
        };
        if let Some(error) = &outcome.error {
            assert!(error.code.starts_with("ERR_NEMO_LENS_"));
            assert!(outcome.warnings.is_empty());
            assert_eq!(snapshot(&state), before, "a refused call changes nothing");
        }
        assert!(outcome
            .warnings
            .iter()
            .all(|w| w.code.starts_with("NEMO_LENS_")));
        assert!(
            outcome
                .warnings
                .iter()
                .filter(|w| w.code.contains("SPEC") || w.code.contains("NO_GROUPS"))
                .count()
                <= 1
        );
        check(&state, spec.as_deref());
    }
});
