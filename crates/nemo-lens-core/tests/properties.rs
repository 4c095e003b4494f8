//! Properties over arbitrary input: resolution never panics, and after any sequence of
//! operations the bitset mirrors `enabled()`, presets stay within `all`, and a refused call
//! changes nothing.

use nemo_lens_core::normalize::{is_python_whitespace, normalize_name};
use nemo_lens_core::{Outcome, PresetEntry, State};
use proptest::prelude::*;

/// Names drawn from a small vocabulary so that operations collide, plus the awkward ones.
fn name() -> impl Strategy<Value = String> {
    prop_oneof![
        4 => prop::sample::select(vec!["step", "Step", " STEP ", "layer", "job", "default", "per_step", "typo", "all", " All ", "", "  ", "\u{1c}x\u{1f}"])
            .prop_map(str::to_owned),
        1 => "\\PC{0,6}",
    ]
}

fn namespace() -> impl Strategy<Value = String> {
    prop::sample::select(vec!["mega", "Mega", "rl", "gym", "", " "]).prop_map(str::to_owned)
}

#[derive(Debug, Clone)]
enum Op {
    Register(String, Vec<String>, Option<Vec<PresetEntry>>, bool),
    Unregister(String),
    Clear,
    SetSpec(String),
    Setup(String),
    Pin(Vec<String>),
    Reset,
}

fn spec() -> impl Strategy<Value = String> {
    prop::collection::vec(name(), 0..4).prop_map(|tokens| tokens.join(","))
}

fn op() -> impl Strategy<Value = Op> {
    let presets = prop::option::of(prop::collection::vec(
        (name(), prop::collection::vec(name(), 0..4)),
        0..3,
    ));
    prop_oneof![
        6 => (namespace(), prop::collection::vec(name(), 0..4), presets, any::<bool>())
            .prop_map(|(ns, groups, presets, allow)| Op::Register(ns, groups, presets, allow)),
        2 => namespace().prop_map(Op::Unregister),
        1 => Just(Op::Clear),
        2 => spec().prop_map(Op::SetSpec),
        1 => spec().prop_map(Op::Setup),
        1 => prop::collection::vec(name(), 0..3).prop_map(Op::Pin),
        1 => Just(Op::Reset),
    ]
}

fn apply(state: &mut State, op: &Op) -> Outcome {
    match op {
        Op::Register(ns, groups, presets, allow) => {
            state.register(ns, groups, presets.as_deref(), *allow)
        }
        Op::Unregister(ns) => state.unregister(ns),
        Op::Clear => state.clear(),
        Op::SetSpec(spec) => state.set_spec(spec),
        Op::Setup(spec) => {
            state.set_setup_done(true);
            state.set_spec(spec)
        }
        Op::Pin(names) => state.pin(names),
        Op::Reset => {
            state.reset();
            Outcome::default()
        }
    }
}

type Snapshot = (
    Vec<String>,
    Vec<String>,
    Vec<(String, Vec<String>)>,
    Vec<String>,
    Vec<String>,
);

fn snapshot(state: &State) -> Snapshot {
    (
        state.groups(),
        state.namespaces(),
        state.presets(),
        state.enabled(),
        state.pending(),
    )
}

/// Where a warning may appear within one call (SPEC 3: shared, members, late, report).
fn rank(code: &str) -> u8 {
    match code {
        "NEMO_LENS_GROUP_SHARED" => 0,
        "NEMO_LENS_PRESET_MEMBER_UNREGISTERED" => 1,
        "NEMO_LENS_LATE_REGISTRATION" => 2,
        _ => 3,
    }
}

proptest! {
    #[test]
    fn resolve_never_panics_and_partitions_tokens(ops in prop::collection::vec(op(), 0..6), spec in "\\PC{0,40}") {
        let mut state = State::new();
        for op in &ops {
            apply(&mut state, op);
        }
        let resolution = state.resolve(&spec);
        let groups = state.groups();
        prop_assert!(resolution.enabled.iter().all(|g| groups.contains(g)));
        prop_assert!(resolution.pending.iter().all(|p| !p.is_empty() && p != "all" && !groups.contains(p)));
    }

    #[test]
    fn invariants_hold_after_every_operation(ops in prop::collection::vec(op(), 1..25)) {
        let mut state = State::new();
        for op in &ops {
            let before = snapshot(&state);
            let count_before = state.name_count();
            let outcome = apply(&mut state, op);
            if outcome.error.is_some() {
                prop_assert!(outcome.warnings.is_empty());
                prop_assert_eq!(snapshot(&state), before);
                prop_assert_eq!(state.name_count(), count_before);
            }
            let ranks: Vec<u8> = outcome.warnings.iter().map(|w| rank(w.code)).collect();
            prop_assert!(ranks.windows(2).all(|w| w[0] <= w[1]), "out of order: {:?}", outcome.warnings);
            prop_assert!(ranks.iter().filter(|&&r| r == 3).count() <= 1);

            let groups = state.groups();
            let presets = state.presets();
            prop_assert_eq!(&presets[0].0, "all");
            prop_assert_eq!(&presets[0].1, &groups);
            for (_, members) in &presets {
                prop_assert!(members.iter().all(|m| groups.contains(m)));
            }

            let mut bits = vec![0u32; state.words_needed()];
            state.write_enabled(&mut bits).unwrap();
            let names = state.names(0);
            let from_bits: Vec<String> = (0..names.len())
                .filter(|&id| bits[id / 32] >> (id % 32) & 1 == 1)
                .map(|id| names[id].clone())
                .collect();
            prop_assert_eq!(&from_bits, &state.enabled());
            prop_assert!(from_bits.iter().all(|n| state.is_enabled(n)));
            prop_assert!(state.name_count() >= count_before);
        }
    }

    #[test]
    fn normalized_names_have_no_outer_whitespace(raw in "\\PC{0,12}") {
        let normalized = normalize_name(&raw);
        prop_assert!(!normalized.starts_with(is_python_whitespace));
        prop_assert!(!normalized.ends_with(is_python_whitespace));
    }
}
