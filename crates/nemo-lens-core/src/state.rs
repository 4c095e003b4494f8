//! One realm's registry plus its process state: retained spec, pinned set, setup flag,
//! last report, and the interned names behind the enabled bitset.
//! Mirrors `src/backends/js/state.ts`.

use std::collections::{BTreeSet, HashMap};
use std::fmt;

use crate::messages::{self, Available};
use crate::registry::{PresetEntry, Registry};
use crate::{Diagnostic, Outcome, Resolution};

/// What a spec report depends on; a re-resolution reports only when this changed.
#[derive(PartialEq, Eq)]
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
            "nemo-lens: the enabled bitset has {} words but {} names need {}; grow it to at least {} words.",
            self.got,
            self.needed * 32,
            self.needed,
            self.needed
        )
    }
}

impl std::error::Error for BitsetTooShort {}

#[derive(Default)]
pub struct State {
    registry: Registry,
    /// A retained spec, re-resolved on every registry change; `None` when pinned, never set or "".
    spec: Option<String>,
    /// Ordered, so `enabled()` comes out in id order without sorting.
    enabled_ids: BTreeSet<usize>,
    pending_tokens: Vec<String>,
    setup_done: bool,
    last_report_key: Option<ReportKey>,

    /// Name → id; ids are dense, never reused, and survive `reset` (the JS side caches them).
    ids: HashMap<String, usize>,
    interned: Vec<String>,
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
        self.change(|state| {
            let registered = state
                .registry
                .register(namespace, groups, presets, allow_override)?;
            for group in &registered.groups {
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
        self.spec = None;
        self.pending_tokens.clear();
        self.enabled_ids = names.iter().map(|name| self.intern(name)).collect();
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
        self.enabled_ids.clear();
        self.pending_tokens.clear();
        self.setup_done = false;
        self.last_report_key = None;
    }

    /// Registered group names, in first-registration order.
    pub fn groups(&self) -> Vec<String> {
        self.registry.groups()
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
        self.enabled_ids
            .iter()
            .map(|&id| self.interned[id].clone())
            .collect()
    }

    /// Exact, case-sensitive membership in the live enabled set.
    pub fn is_enabled(&self, name: &str) -> bool {
        self.ids
            .get(name)
            .is_some_and(|id| self.enabled_ids.contains(id))
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
        self.interned.get(from..).unwrap_or_default().to_vec()
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
        bits.fill(0);
        for &id in &self.enabled_ids {
            bits[id / 32] |= 1 << (id % 32);
        }
        Ok(())
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
        let spec = self.spec.clone().unwrap_or_default();
        let resolved = self.registry.resolve(&spec);
        self.enabled_ids = resolved
            .enabled
            .iter()
            .map(|name| self.intern(name))
            .collect();

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

        if resolved.tokens == 0 || !(always || changed) {
            return Vec::new();
        }
        if registry_empty {
            return vec![messages::no_groups_registered(&spec)];
        }
        if !self.pending_tokens.is_empty() {
            return vec![messages::spec_pending(
                &spec,
                &self.pending_tokens,
                &self.available(),
            )];
        }
        if resolved.enabled.is_empty() {
            return vec![messages::spec_resolved_empty(&spec, &self.available())];
        }
        Vec::new()
    }

    fn available(&self) -> Available {
        Available {
            groups: self.registry.groups(),
            presets: self.registry.presets().into_keys().collect(),
            namespaces: self.registry.namespaces(),
        }
    }

    fn intern(&mut self, name: &str) -> usize {
        if let Some(&id) = self.ids.get(name) {
            return id;
        }
        let id = self.interned.len();
        self.ids.insert(name.to_owned(), id);
        self.interned.push(name.to_owned());
        id
    }
}
