//! One realm's registry plus its process state: retained spec, pinned set, setup flag,
//! last report, and the interned names behind the enabled bitset.
//! Mirrors `src/backends/js/state.ts`.

use std::fmt;

use crate::messages::{self, Available};
use crate::normalize::strip_whitespace;
use crate::registry::{borrow_names, PresetEntry, Registry};
use crate::symbols::Sym;
use crate::{Diagnostic, Outcome, Resolution};

/// What a spec report depends on; a re-resolution reports only when this changed.
#[derive(Debug, PartialEq, Eq)]
struct ReportKey {
    /// Sorted, so that the key compares pending sets, not orders.
    pending: Vec<String>,
    registry_empty: bool,
    nothing_enabled: bool,
}

/// `write_enabled` was given fewer words than the interned names need.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BitsetTooShort {
    pub needed: usize,
    pub got: usize,
}

impl fmt::Display for BitsetTooShort {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "nemo-lens: the enabled bitset needs at least {} words (ceil(nameCount / 32)), got {}.",
            self.needed, self.got
        )
    }
}

impl std::error::Error for BitsetTooShort {}

/// No gate id: `gate_of[sym]` of a name that can never be enabled.
const NO_GATE: u32 = u32::MAX;

#[derive(Debug, Default)]
pub struct State {
    registry: Registry,
    /// A retained spec, re-resolved on every registry change; `None` when pinned, never set or "".
    spec: Option<String>,
    /// The enabled set as a bitset over ids (bit `id % 32` of word `id / 32`).
    enabled_bits: Vec<u32>,
    pending_tokens: Vec<String>,
    setup_done: bool,
    last_report_key: Option<ReportKey>,

    /// Id → interned name (the registry's symbol); ids are dense, never reused, and survive
    /// `reset` (the JS side caches them).
    interned: Vec<Sym>,
    /// Symbol → id, `NO_GATE` for names that never got one.
    gate_of: Vec<u32>,
}

impl State {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn register(
        &mut self,
        namespace: &str,
        groups: &[String],
        presets: Option<&[PresetEntry]>,
        allow_override: bool,
    ) -> Outcome {
        let (groups, presets) = borrow_names(groups, presets);
        self.register_names(namespace, &groups, &presets, allow_override)
    }

    /// [`State::register`] over borrowed names (`presets`: as given, `[]` for none).
    pub fn register_names(
        &mut self,
        namespace: &str,
        groups: &[&str],
        presets: &[(&str, Vec<&str>)],
        allow_override: bool,
    ) -> Outcome {
        self.change(|state| {
            let registered =
                state
                    .registry
                    .register_names(namespace, groups, presets, allow_override)?;
            state.interned.reserve(registered.groups.len());
            for &group in &registered.groups {
                state.intern(group);
            }
            let mut warnings = registered.warnings;
            if state.setup_done {
                warnings.push(messages::late_registration(namespace));
            }
            Ok(warnings)
        })
    }

    pub fn unregister(&mut self, namespace: &str) -> Outcome {
        self.change(|state| {
            state.registry.unregister(namespace)?;
            Ok(Vec::new())
        })
    }

    pub fn clear(&mut self) -> Outcome {
        self.change(|state| {
            state.registry.clear();
            Ok(Vec::new())
        })
    }

    /// Retain `spec` (unless it is "") and resolve it; always reports.
    pub fn set_spec(&mut self, spec: &str) -> Outcome {
        self.spec = (!spec.is_empty()).then(|| spec.to_owned());
        Outcome {
            error: None,
            warnings: self.reresolve(true),
        }
    }

    /// Pin exactly these names (used as given, no normalisation) and drop the spec.
    pub fn pin(&mut self, names: &[String]) -> Outcome {
        let names: Vec<&str> = names.iter().map(String::as_str).collect();
        self.pin_names(&names)
    }

    /// [`State::pin`] over borrowed names.
    pub fn pin_names(&mut self, names: &[&str]) -> Outcome {
        self.spec = None;
        self.pending_tokens.clear();
        self.enabled_bits.clear();
        for name in names {
            let sym = self.registry.intern(name);
            let id = self.intern(sym);
            self.enable(id);
        }
        Outcome::default()
    }

    /// Set by an enabled setupTelemetry: later registrations warn.
    pub fn set_setup_done(&mut self, done: bool) {
        self.setup_done = done;
    }

    /// Back to a fresh state: empty registry, no spec, nothing pinned, setup flag off.
    /// Interned ids are kept.
    pub fn reset(&mut self) {
        self.registry.clear();
        self.spec = None;
        self.enabled_bits.clear();
        self.pending_tokens.clear();
        self.setup_done = false;
        self.last_report_key = None;
    }

    /// Registered group names, in first-registration order.
    pub fn groups(&self) -> Vec<String> {
        self.registry.groups()
    }

    /// Registered group names, in first-registration order, borrowed.
    pub fn group_names(&self) -> impl ExactSizeIterator<Item = &str> + '_ {
        self.registry
            .group_ids()
            .iter()
            .map(|&sym| self.registry.name(sym))
    }

    /// Registered namespaces, sorted by code point.
    pub fn namespaces(&self) -> Vec<String> {
        self.registry.namespaces()
    }

    /// Merged presets: `all` first, then others in order of first appearance.
    pub fn presets(&self) -> Vec<(String, Vec<String>)> {
        self.registry.presets().into_iter().collect()
    }

    /// Resolve a spec against the registry without changing any state.
    pub fn resolve(&self, spec: &str) -> Resolution {
        let resolved = self.registry.resolve(spec);
        Resolution {
            enabled: resolved.enabled,
            pending: resolved.pending,
        }
    }

    /// The live enabled set, in id order.
    pub fn enabled(&self) -> Vec<String> {
        self.enabled_ids()
            .map(|id| self.name_of(id).to_owned())
            .collect()
    }

    /// Exact, case-sensitive membership in the live enabled set.
    pub fn is_enabled(&self, name: &str) -> bool {
        self.registry
            .lookup(name)
            .and_then(|sym| self.gate_of.get(sym as usize))
            .is_some_and(|&id| id != NO_GATE && self.is_enabled_id(id as usize))
    }

    /// Tokens of the retained spec that name nothing here, in spec order.
    pub fn pending(&self) -> Vec<String> {
        self.pending_tokens.clone()
    }

    /// How many names have an id (every registered group and pinned name ever seen).
    pub fn name_count(&self) -> usize {
        self.interned.len()
    }

    /// Interned names with id >= `from`, in id order.
    pub fn names(&self, from: usize) -> Vec<String> {
        self.names_from(from).map(str::to_owned).collect()
    }

    /// [`State::names`], borrowed.
    pub fn names_from(&self, from: usize) -> impl ExactSizeIterator<Item = &str> + '_ {
        self.interned
            .get(from..)
            .unwrap_or_default()
            .iter()
            .map(|&sym| self.registry.name(sym))
    }

    /// Words a bitset needs to hold every id: `ceil(name_count / 32)`.
    pub fn words_needed(&self) -> usize {
        self.interned.len().div_ceil(32)
    }

    /// Write the enabled set as a bitset (bit `id % 32` of word `id / 32`), zeroing every
    /// other bit of `bits`. Refuses, writing nothing, when `bits` is shorter than `words_needed`.
    pub fn write_enabled(&self, bits: &mut [u32]) -> Result<(), BitsetTooShort> {
        let needed = self.words_needed();
        if bits.len() < needed {
            return Err(BitsetTooShort {
                needed,
                got: bits.len(),
            });
        }
        let (ours, rest) = bits.split_at_mut(self.enabled_bits.len());
        ours.copy_from_slice(&self.enabled_bits);
        rest.fill(0);
        Ok(())
    }

    fn name_of(&self, id: usize) -> &str {
        self.registry.name(self.interned[id])
    }

    fn enable(&mut self, id: usize) {
        let word = id / 32;
        if word >= self.enabled_bits.len() {
            self.enabled_bits.resize(word + 1, 0);
        }
        self.enabled_bits[word] |= 1 << (id % 32);
    }

    fn is_enabled_id(&self, id: usize) -> bool {
        self.enabled_bits
            .get(id / 32)
            .is_some_and(|word| word & (1 << (id % 32)) != 0)
    }

    fn enabled_ids(&self) -> impl Iterator<Item = usize> + '_ {
        self.enabled_bits
            .iter()
            .enumerate()
            .flat_map(|(word, &bits)| {
                (0..32)
                    .filter(move |bit| bits & (1 << bit) != 0)
                    .map(move |bit| word * 32 + bit)
            })
    }

    /// Apply a registry change; a refused change leaves every piece of state as it was.
    fn change(
        &mut self,
        apply: impl FnOnce(&mut Self) -> Result<Vec<Diagnostic>, Diagnostic>,
    ) -> Outcome {
        let mut warnings = match apply(self) {
            Ok(warnings) => warnings,
            Err(error) => {
                return Outcome {
                    error: Some(error),
                    warnings: Vec::new(),
                }
            }
        };
        if self.spec.is_some() {
            warnings.extend(self.reresolve(false));
        }
        Outcome {
            error: None,
            warnings,
        }
    }

    /// Resolve the retained spec (none → nothing enabled) and report by precedence.
    fn reresolve(&mut self, always: bool) -> Vec<Diagnostic> {
        let spec = self.spec.take().unwrap_or_default();
        let resolved = self.registry.resolve_ids(&spec);
        self.enabled_bits.clear();
        for &sym in &resolved.enabled {
            let id = self.intern(sym);
            self.enable(id);
        }

        let registry_empty = !self.registry.has_groups();
        let mut sorted_pending = resolved.pending.clone();
        sorted_pending.sort();
        let key = ReportKey {
            pending: sorted_pending,
            registry_empty,
            nothing_enabled: resolved.enabled.is_empty(),
        };
        let changed = self.last_report_key.as_ref() != Some(&key);
        self.last_report_key = Some(key);
        self.pending_tokens = resolved.pending;

        // A spec of only commas and blanks (`","`, `" , , "`) asked for something and got
        // nothing: it reports like any other. Only a spec that is blank as a whole is silent.
        let asked = !strip_whitespace(&spec).is_empty();
        let report = if !asked || !(always || changed) {
            Vec::new()
        } else if registry_empty {
            vec![messages::no_groups_registered(&spec)]
        } else if !self.pending_tokens.is_empty() {
            vec![messages::spec_pending(
                &spec,
                &self.pending_tokens,
                &self.available(),
            )]
        } else if resolved.enabled.is_empty() {
            vec![messages::spec_resolved_empty(&spec, &self.available())]
        } else {
            Vec::new()
        };
        self.spec = (!spec.is_empty()).then_some(spec);
        report
    }

    fn available(&self) -> Available {
        Available {
            groups: self.registry.groups(),
            presets: self.registry.preset_names(),
            namespaces: self.registry.namespaces(),
        }
    }

    /// The id of an interned name, given one on first sight.
    fn intern(&mut self, sym: Sym) -> usize {
        let slot = sym as usize;
        if slot >= self.gate_of.len() {
            self.gate_of.resize(slot + 1, NO_GATE);
        }
        if self.gate_of[slot] == NO_GATE {
            self.gate_of[slot] = u32::try_from(self.interned.len()).expect("fewer than 2^32 ids");
            self.interned.push(sym);
        }
        self.gate_of[slot] as usize
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(values: &[&str]) -> Vec<String> {
        values.iter().map(|v| (*v).to_owned()).collect()
    }

    fn codes(outcome: &Outcome) -> Vec<&'static str> {
        outcome.warnings.iter().map(|d| d.code).collect()
    }

    #[test]
    fn ids_are_dense_stable_and_survive_reset() {
        let mut s = State::new();
        s.register("mega", &names(&["Step", "layer"]), None, false);
        s.pin(&names(&["Job", "step"]));
        assert_eq!(s.names(0), ["step", "layer", "Job"]);
        s.unregister("mega");
        s.reset();
        s.register("rl", &names(&["layer", "rollout"]), None, false);
        assert_eq!(s.name_count(), 4);
        assert_eq!(s.names(2), ["Job", "rollout"]);
        assert!(s.names(9).is_empty());
    }

    #[test]
    fn a_refused_registration_interns_nothing() {
        let mut s = State::new();
        let outcome = s.register("mega", &names(&["step", "all"]), None, false);
        assert_eq!(
            outcome.error.map(|d| d.code),
            Some("ERR_NEMO_LENS_RESERVED_GROUP_NAME")
        );
        assert_eq!(s.name_count(), 0);
    }

    #[test]
    fn pinned_names_are_used_as_given() {
        let mut s = State::new();
        s.pin(&names(&[" Step "]));
        assert!(s.is_enabled(" Step "));
        assert!(!s.is_enabled("step"));
        assert_eq!(s.enabled(), [" Step "]);
    }

    #[test]
    fn write_enabled_sets_bits_by_id_and_clears_the_rest() {
        let mut s = State::new();
        let groups: Vec<String> = (0..40).map(|i| format!("g{i}")).collect();
        s.register("ns", &groups, None, false);
        s.set_spec("g0,g31,g32,g39");
        let mut bits = [u32::MAX; 3];
        s.write_enabled(&mut bits).unwrap();
        assert_eq!(bits, [1 | 1 << 31, 1 | 1 << 7, 0]);
    }

    #[test]
    fn write_enabled_refuses_a_short_bitset() {
        let mut s = State::new();
        let groups: Vec<String> = (0..33).map(|i| format!("g{i}")).collect();
        s.register("ns", &groups, None, false);
        let mut bits = [7u32; 1];
        assert_eq!(
            s.write_enabled(&mut bits),
            Err(BitsetTooShort { needed: 2, got: 1 })
        );
        assert_eq!(bits, [7]);
        assert!(State::new().write_enabled(&mut []).is_ok());
    }

    #[test]
    fn warnings_come_in_the_documented_order() {
        let mut s = State::new();
        s.register("mega", &names(&["step"]), None, false);
        s.set_setup_done(true);
        s.set_spec("step,typo");
        let presets = [("p".to_owned(), names(&["nope"]))];
        let outcome = s.register("rl", &names(&["step", "rollout"]), Some(&presets), false);
        // The pending set did not change, so no spec report.
        assert_eq!(
            codes(&outcome),
            [
                "NEMO_LENS_GROUP_SHARED",
                "NEMO_LENS_PRESET_MEMBER_UNREGISTERED",
                "NEMO_LENS_LATE_REGISTRATION"
            ]
        );
        let outcome = s.register("typo", &names(&["typo"]), None, false);
        assert_eq!(codes(&outcome), ["NEMO_LENS_LATE_REGISTRATION"]);
        let outcome = s.unregister("typo");
        assert_eq!(codes(&outcome), ["NEMO_LENS_SPEC_PENDING"]);
    }

    #[test]
    fn report_precedence_and_messages() {
        let mut s = State::new();
        let outcome = s.set_spec("Default");
        assert_eq!(codes(&outcome), ["NEMO_LENS_NO_GROUPS_REGISTERED"]);
        assert!(outcome.warnings[0]
            .message
            .contains("spec \"Default\" selects nothing"));
        assert_eq!(s.pending(), ["default"]);

        let presets = [("prod".to_owned(), names(&["step"]))];
        s.register("rl", &names(&["rollout"]), Some(&presets), false);
        assert_eq!(
            s.set_spec("prod").warnings[0].code,
            "NEMO_LENS_SPEC_RESOLVED_EMPTY"
        );
        let outcome = s.set_spec("prod, typo");
        assert_eq!(codes(&outcome), ["NEMO_LENS_SPEC_PENDING"]);
        assert!(outcome.warnings[0].message.ends_with(
            "Available groups: \"rollout\"; presets: \"all\", \"prod\"; namespaces: \"rl\"."
        ));
    }

    #[test]
    fn an_empty_spec_is_not_retained() {
        let mut s = State::new();
        assert!(s.set_spec("").warnings.is_empty());
        s.register("mega", &names(&["step"]), None, false);
        assert!(s.enabled().is_empty());
        s.set_spec(" , ");
        let outcome = s.register("rl", &names(&["rollout"]), None, false);
        assert!(outcome.warnings.is_empty());
    }

    #[test]
    fn a_spec_of_only_commas_and_blanks_reports_and_is_retained() {
        let mut s = State::new();
        assert_eq!(codes(&s.set_spec(",,")), ["NEMO_LENS_NO_GROUPS_REGISTERED"]);
        // Retained: the first registration changes the report key and re-reports.
        let outcome = s.register("mega", &names(&["step"]), None, false);
        assert_eq!(codes(&outcome), ["NEMO_LENS_SPEC_RESOLVED_EMPTY"]);
        assert_eq!(
            codes(&s.set_spec(" , , ")),
            ["NEMO_LENS_SPEC_RESOLVED_EMPTY"]
        );
        assert!(s.enabled().is_empty());
        // Blank as a whole (no comma) asks for nothing and stays silent, as before.
        assert!(s.set_spec(" \t ").warnings.is_empty());
    }

    #[test]
    fn pin_drops_the_spec_and_reset_clears_everything() {
        let mut s = State::new();
        s.register("mega", &names(&["step"]), None, false);
        s.set_spec("all,typo");
        s.pin(&[]);
        assert!(s.enabled().is_empty() && s.pending().is_empty());
        s.register("rl", &names(&["rollout"]), None, false);
        assert!(s.enabled().is_empty());

        s.set_setup_done(true);
        s.set_spec("all");
        s.reset();
        assert!(s.groups().is_empty() && s.enabled().is_empty());
        assert!(s
            .register("late", &names(&["x"]), None, false)
            .warnings
            .is_empty());
    }
}
