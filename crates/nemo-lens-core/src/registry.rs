//! The span-group registry: namespaces, the groups they own and their presets.
//! Mirrors `src/backends/js/registry.ts` step for step (JS `Map` order ⇔ `IndexMap` order).

use indexmap::{IndexMap, IndexSet};

use crate::messages;
use crate::normalize::normalize_name;
use crate::spec::spec_tokens;
use crate::Diagnostic;

/// The preset every registry has: every registered group. Reserved as a group and preset name.
pub const ALL: &str = "all";

/// A preset as passed to `register`: its name and members, both as given.
pub type PresetEntry = (String, Vec<String>);

struct Registration {
    /// Normalised, deduplicated, in the order given.
    groups: Vec<String>,
    /// Normalised preset name → normalised members (deduplicated, in the order given).
    /// A later duplicate name wins but keeps the first one's position, as a JS `Map` does.
    presets: IndexMap<String, Vec<String>>,
}

/// A successful registration.
pub struct Registered {
    /// The namespace's groups, normalised.
    pub groups: Vec<String>,
    /// Shared groups, then preset members nobody registers.
    pub warnings: Vec<Diagnostic>,
}

/// A spec resolved against the registry.
pub struct Resolved {
    /// Groups in order of first selection.
    pub enabled: Vec<String>,
    /// Tokens that name nothing here, deduplicated, in spec order.
    pub pending: Vec<String>,
    /// How many non-empty tokens the spec had (duplicates counted).
    pub tokens: usize,
}

fn dedupe(names: impl IntoIterator<Item = String>) -> Vec<String> {
    names
        .into_iter()
        .collect::<IndexSet<_>>()
        .into_iter()
        .collect()
}

#[derive(Default)]
pub struct Registry {
    /// Registration order; an override keeps the namespace's position.
    by_namespace: IndexMap<String, Registration>,
    /// Group → owning namespaces, in the order groups first became registered (a group
    /// whose last owner leaves is removed, so re-registering it moves it to the end).
    owners: IndexMap<String, IndexSet<String>>,
}

impl Registry {
    /// Validate, then replace or add; an `Err` leaves everything unchanged.
    pub fn register(
        &mut self,
        namespace: &str,
        groups: &[String],
        presets: Option<&[PresetEntry]>,
        allow_override: bool,
    ) -> Result<Registered, Diagnostic> {
        if namespace.is_empty() {
            return Err(messages::invalid_namespace());
        }
        let mut normalized_groups = Vec::with_capacity(groups.len());
        for raw in groups {
            let name = normalize_name(raw);
            if name.is_empty() {
                return Err(messages::empty_group_name(namespace, raw));
            }
            if name == ALL {
                return Err(messages::reserved_group_name(namespace, raw));
            }
            normalized_groups.push(name);
        }
        let mut preset_entries: Vec<PresetEntry> = Vec::new();
        for (raw, members) in presets.unwrap_or_default() {
            let name = normalize_name(raw);
            if name == ALL {
                return Err(messages::reserved_preset_name(namespace, raw));
            }
            preset_entries.push((name, dedupe(members.iter().map(|m| normalize_name(m)))));
        }
        if self.by_namespace.contains_key(namespace) && !allow_override {
            return Err(messages::namespace_registered(namespace));
        }

        let groups = dedupe(normalized_groups);
        let mut warnings = Vec::new();
        if !allow_override {
            warnings.extend(self.shared_group_warnings(namespace, &groups));
        }
        warnings.extend(self.unregistered_member_warnings(namespace, &groups, &preset_entries));

        self.drop_ownership(namespace);
        let registration = Registration {
            groups: groups.clone(),
            presets: preset_entries.into_iter().collect(),
        };
        // Inserting an existing key keeps its position: an override stays where it was.
        self.by_namespace.insert(namespace.to_owned(), registration);
        for group in &groups {
            self.add_owner(group, namespace);
        }
        Ok(Registered { groups, warnings })
    }

    pub fn unregister(&mut self, namespace: &str) -> Result<(), Diagnostic> {
        if !self.by_namespace.contains_key(namespace) {
            return Err(messages::namespace_not_registered(
                namespace,
                &self.namespaces(),
            ));
        }
        self.drop_ownership(namespace);
        self.by_namespace.shift_remove(namespace);
        Ok(())
    }

    pub fn clear(&mut self) {
        self.by_namespace.clear();
        self.owners.clear();
    }

    pub fn has_groups(&self) -> bool {
        !self.owners.is_empty()
    }

    pub fn has_group(&self, name: &str) -> bool {
        self.owners.contains_key(name)
    }

    /// Registered groups, in the order they first became registered.
    pub fn groups(&self) -> Vec<String> {
        self.owners.keys().cloned().collect()
    }

    /// Registered namespaces, sorted by code point (Rust's `str` order).
    pub fn namespaces(&self) -> Vec<String> {
        let mut namespaces: Vec<String> = self.by_namespace.keys().cloned().collect();
        namespaces.sort();
        namespaces
    }

    /// Presets merged across namespaces (union by name, members kept only while registered),
    /// `all` first, then in order of first appearance. A preset pruned to empty stays as a key.
    pub fn presets(&self) -> IndexMap<String, Vec<String>> {
        let mut merged: IndexMap<&str, IndexSet<&str>> = IndexMap::new();
        merged.insert(ALL, self.owners.keys().map(String::as_str).collect());
        for registration in self.by_namespace.values() {
            for (name, members) in &registration.presets {
                let into = merged.entry(name.as_str()).or_default();
                into.extend(
                    members
                        .iter()
                        .map(String::as_str)
                        .filter(|m| self.has_group(m)),
                );
            }
        }
        merged
            .into_iter()
            .map(|(name, members)| {
                (
                    name.to_owned(),
                    members.into_iter().map(str::to_owned).collect(),
                )
            })
            .collect()
    }

    /// Presets win over a group of the same name; `all` is a preset, so never pending.
    pub fn resolve(&self, spec: &str) -> Resolved {
        let tokens = spec_tokens(spec);
        let presets = if tokens.is_empty() {
            IndexMap::new()
        } else {
            self.presets()
        };
        let mut enabled: IndexSet<String> = IndexSet::new();
        let mut pending: IndexSet<String> = IndexSet::new();
        for token in &tokens {
            if let Some(members) = presets.get(token) {
                enabled.extend(members.iter().cloned());
            } else if self.has_group(token) {
                enabled.insert(token.clone());
            } else {
                pending.insert(token.clone());
            }
        }
        Resolved {
            enabled: enabled.into_iter().collect(),
            pending: pending.into_iter().collect(),
            tokens: tokens.len(),
        }
    }

    /// One warning per other namespace, in registration order, naming the groups it shares.
    fn shared_group_warnings(&self, namespace: &str, groups: &[String]) -> Vec<Diagnostic> {
        let mut warnings = Vec::new();
        for (other, registration) in &self.by_namespace {
            if other == namespace {
                continue;
            }
            let shared: Vec<String> = groups
                .iter()
                .filter(|g| registration.groups.contains(g))
                .cloned()
                .collect();
            if !shared.is_empty() {
                warnings.push(messages::group_shared(namespace, other, &shared));
            }
        }
        warnings
    }

    /// One warning per preset entry as given, naming the members nobody (else) registers.
    /// Checked against the registry as it will be once this registration replaces any
    /// previous one of the same namespace (an override drops its old groups).
    fn unregistered_member_warnings(
        &self,
        namespace: &str,
        groups: &[String],
        preset_entries: &[PresetEntry],
    ) -> Vec<Diagnostic> {
        let known = |member: &String| {
            groups.contains(member)
                || self
                    .owners
                    .get(member)
                    .is_some_and(|owners| owners.len() > 1 || !owners.contains(namespace))
        };
        let mut warnings = Vec::new();
        for (preset, members) in preset_entries {
            let mut missing: Vec<String> = members.iter().filter(|m| !known(m)).cloned().collect();
            if !missing.is_empty() {
                missing.sort();
                warnings.push(messages::preset_member_unregistered(
                    namespace, preset, &missing,
                ));
            }
        }
        warnings
    }

    fn add_owner(&mut self, group: &str, namespace: &str) {
        self.owners
            .entry(group.to_owned())
            .or_default()
            .insert(namespace.to_owned());
    }

    fn drop_ownership(&mut self, namespace: &str) {
        let Some(registration) = self.by_namespace.get(namespace) else {
            return;
        };
        for group in &registration.groups {
            if let Some(owners) = self.owners.get_mut(group) {
                owners.shift_remove(namespace);
                if owners.is_empty() {
                    // shift_remove keeps the other groups in first-registration order.
                    self.owners.shift_remove(group);
                }
            }
        }
    }
}
