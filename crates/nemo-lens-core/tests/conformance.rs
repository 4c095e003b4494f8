//! Runs every conformance vector (recorded from the Python reference) against `State`,
//! step by step, comparing errors, warnings, resolutions, gates and the state snapshot.

use std::collections::BTreeMap;
use std::fs;
use std::path::PathBuf;

use nemo_lens_core::{Outcome, PresetEntry, State};
use serde::Deserialize;
use serde_json::{Map, Value};

#[derive(Deserialize)]
struct VectorFile {
    /// `1` in the first files, `"nemo-lens conformance vectors v1"` in registry-extra.json.
    format: Value,
    vectors: Vec<Vector>,
}

#[derive(Deserialize)]
struct Vector {
    name: String,
    steps: Vec<Step>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Step {
    op: String,
    namespace: Option<String>,
    groups: Option<Vec<String>>,
    /// An object in the file; its key order matters (a later duplicate name wins).
    presets: Option<Map<String, Value>>,
    allow_override: Option<bool>,
    spec: Option<String>,
    names: Option<Vec<String>>,
    expect: Expect,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Expect {
    error: Option<String>,
    warnings: Vec<ExpectedWarning>,
    state: Snapshot,
    resolved: Option<Sets>,
    is_enabled: Option<BTreeMap<String, bool>>,
}

#[derive(Deserialize)]
struct ExpectedWarning {
    code: String,
    mentions: Vec<String>,
}

#[derive(Deserialize, Debug, PartialEq)]
struct Sets {
    enabled: Vec<String>,
    pending: Vec<String>,
}

#[derive(Deserialize, Debug, PartialEq)]
struct Snapshot {
    groups: Vec<String>,
    namespaces: Vec<String>,
    presets: BTreeMap<String, Vec<String>>,
    enabled: Vec<String>,
    pending: Vec<String>,
}

fn sorted(mut names: Vec<String>) -> Vec<String> {
    names.sort();
    names
}

fn snapshot(state: &State) -> Snapshot {
    Snapshot {
        groups: sorted(state.groups()),
        namespaces: sorted(state.namespaces()),
        presets: state
            .presets()
            .into_iter()
            .map(|(name, members)| (name, sorted(members)))
            .collect(),
        enabled: sorted(state.enabled()),
        pending: sorted(state.pending()),
    }
}

fn preset_entries(presets: &Map<String, Value>) -> Vec<PresetEntry> {
    presets
        .iter()
        .map(|(name, members)| {
            let members: Vec<String> =
                serde_json::from_value(members.clone()).expect("preset members are strings");
            (name.clone(), members)
        })
        .collect()
}

fn text<'a>(value: &'a Option<String>, what: &str) -> &'a str {
    value
        .as_deref()
        .unwrap_or_else(|| panic!("step lacks `{what}`"))
}

fn strings<'a>(value: &'a Option<Vec<String>>, what: &str) -> &'a [String] {
    value
        .as_deref()
        .unwrap_or_else(|| panic!("step lacks `{what}`"))
}

/// Run one step; returns what it did plus, for `resolve` and `isEnabled`, what it answered.
fn run(state: &mut State, step: &Step) -> (Outcome, Option<Sets>, Option<BTreeMap<String, bool>>) {
    let mut resolved = None;
    let mut gates = None;
    let outcome = match step.op.as_str() {
        "register" => {
            let presets = step.presets.as_ref().map(preset_entries);
            state.register(
                text(&step.namespace, "namespace"),
                strings(&step.groups, "groups"),
                presets.as_deref(),
                step.allow_override.unwrap_or(false),
            )
        }
        "unregister" => state.unregister(text(&step.namespace, "namespace")),
        "clear" => state.clear(),
        "setSpec" => state.set_spec(text(&step.spec, "spec")),
        "setup" => {
            state.set_setup_done(true);
            state.set_spec(text(&step.spec, "spec"))
        }
        "pin" => state.pin(strings(&step.groups, "groups")),
        "resolve" => {
            let r = state.resolve(text(&step.spec, "spec"));
            resolved = Some(Sets {
                enabled: sorted(r.enabled),
                pending: sorted(r.pending),
            });
            Outcome::default()
        }
        "isEnabled" => {
            let names = strings(&step.names, "names");
            gates = Some(
                names
                    .iter()
                    .map(|n| (n.clone(), state.is_enabled(n)))
                    .collect(),
            );
            Outcome::default()
        }
        other => panic!("unknown op {other}"),
    };
    (outcome, resolved, gates)
}

/// Everything wrong with one step's result, empty when it conforms.
fn check(
    state: &State,
    step: &Step,
    outcome: &Outcome,
    resolved: Option<Sets>,
    gates: Option<BTreeMap<String, bool>>,
) -> Vec<String> {
    let expect = &step.expect;
    let mut problems = Vec::new();
    let error = outcome.error.as_ref().map(|d| d.code.to_owned());
    if error != expect.error {
        problems.push(format!("error: got {error:?}, want {:?}", expect.error));
    }
    let codes: Vec<&str> = outcome.warnings.iter().map(|w| w.code).collect();
    let want_codes: Vec<&str> = expect.warnings.iter().map(|w| w.code.as_str()).collect();
    if codes != want_codes {
        problems.push(format!("warnings: got {codes:?}, want {want_codes:?}"));
    } else {
        for (got, want) in outcome.warnings.iter().zip(&expect.warnings) {
            for mention in &want.mentions {
                if !got.message.contains(mention.as_str()) {
                    problems.push(format!(
                        "{} does not mention {mention:?}: {}",
                        got.code, got.message
                    ));
                }
            }
        }
    }
    if resolved != expect.resolved {
        problems.push(format!(
            "resolved: got {resolved:?}, want {:?}",
            expect.resolved
        ));
    }
    if gates != expect.is_enabled {
        problems.push(format!(
            "isEnabled: got {gates:?}, want {:?}",
            expect.is_enabled
        ));
    }
    let got = snapshot(state);
    if got != expect.state {
        problems.push(format!("state: got {got:?}\n      want {:?}", expect.state));
    }
    problems.extend(invariants(state));
    problems
}

/// Properties that hold after every step, whatever the vector: the bitset mirrors
/// `enabled()`, every preset is a subset of `all`, and `all` is `groups()`.
fn invariants(state: &State) -> Vec<String> {
    let mut problems = Vec::new();
    let mut bits = vec![u32::MAX; state.words_needed() + 1];
    state
        .write_enabled(&mut bits)
        .expect("bitset is long enough");
    let names = state.names(0);
    let from_bits: Vec<String> = (0..names.len())
        .filter(|&id| bits[id / 32] & (1 << (id % 32)) != 0)
        .map(|id| names[id].clone())
        .collect();
    if from_bits != state.enabled() {
        problems.push(format!(
            "bitset {from_bits:?} != enabled {:?}",
            state.enabled()
        ));
    }
    if bits[state.words_needed()] != 0 {
        problems.push("write_enabled left bits set past the last id".to_owned());
    }
    let groups = state.groups();
    let presets = state.presets();
    if presets
        .first()
        .map(|(name, members)| (name.as_str(), members))
        != Some(("all", &groups))
    {
        problems.push(format!(
            "presets do not start with all = groups: {presets:?}"
        ));
    }
    for (name, members) in &presets {
        if let Some(stray) = members.iter().find(|m| !groups.contains(m)) {
            problems.push(format!("preset {name:?} holds unregistered {stray:?}"));
        }
    }
    problems
}

#[test]
fn conformance_vectors() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../__test__/fixtures/conformance");
    let mut files: Vec<PathBuf> = fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", dir.display()))
        .map(|entry| entry.expect("directory entry").path())
        // registry*.json are the registry vectors; config-env.json and spec-env.json are
        // about the environment, which only the TypeScript layer reads.
        .filter(|path| {
            path.extension().is_some_and(|ext| ext == "json")
                && path
                    .file_name()
                    .is_some_and(|name| name.to_string_lossy().starts_with("registry"))
        })
        .collect();
    files.sort();
    assert!(!files.is_empty(), "no vectors in {}", dir.display());

    let (mut vectors, mut steps) = (0, 0);
    let mut failures = Vec::new();
    for path in &files {
        let text = fs::read_to_string(path).expect("vector file");
        let file: VectorFile =
            serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        assert!(
            file.format == 1 || file.format == "nemo-lens conformance vectors v1",
            "{}: unknown format {}",
            path.display(),
            file.format
        );
        for vector in &file.vectors {
            vectors += 1;
            let mut state = State::new();
            for (index, step) in vector.steps.iter().enumerate() {
                steps += 1;
                let (outcome, resolved, gates) = run(&mut state, step);
                for problem in check(&state, step, &outcome, resolved, gates) {
                    failures.push(format!(
                        "{} / step {index} ({}): {problem}",
                        vector.name, step.op
                    ));
                }
            }
        }
    }
    println!(
        "conformance: {steps} steps in {vectors} vectors from {} files checked",
        files.len()
    );
    assert!(
        failures.is_empty(),
        "{} problems, first ones:\n{}",
        failures.len(),
        failures
            .iter()
            .take(20)
            .cloned()
            .collect::<Vec<_>>()
            .join("\n")
    );
}
