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

    /// One warning per other namespace, in registration order, naming the groups it shares
    /// (found through `owners`, so the cost follows the new groups, not the registry size).
    fn shared_group_warnings(&self, namespace: &str, groups: &[String]) -> Vec<Diagnostic> {
        let mut shared_with: IndexMap<&str, Vec<String>> = IndexMap::new();
        for group in groups {
            for owner in self.owners.get(group).into_iter().flatten() {
                if owner != namespace {
                    shared_with.entry(owner).or_default().push(group.clone());
                }
            }
        }
        let mut warnings = Vec::new();
        if shared_with.is_empty() {
            return warnings;
        }
        for other in self.by_namespace.keys() {
            if let Some(shared) = shared_with.get(other.as_str()) {
                warnings.push(messages::group_shared(namespace, other, shared));
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
        let own: IndexSet<&str> = groups.iter().map(String::as_str).collect();
        let known = |member: &String| {
            own.contains(member.as_str())
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
        let mut orphaned = false;
        for group in &registration.groups {
            if let Some(owners) = self.owners.get_mut(group) {
                owners.shift_remove(namespace);
                orphaned |= owners.is_empty();
            }
        }
        // One pass that keeps the other groups in first-registration order. Removing each
        // orphan with `shift_remove` would shift the map once per group: quadratic, 35 s to
        // unregister a namespace of 100k groups (the twin's Map.delete takes 0.1 s).
        if orphaned {
            self.owners.retain(|_, owners| !owners.is_empty());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
        // Groups are checked one by one, before presets, before the namespace collision.
        assert_eq!(
            code(r.register("ns", &names(&["ALL", " "]), None, false)),
            "ERR_NEMO_LENS_RESERVED_GROUP_NAME"
        );
        assert_eq!(
            code(r.register("ns", &names(&[" ", "all"]), None, false)),
            "ERR_NEMO_LENS_EMPTY_GROUP_NAME"
        );
        let reserved = [preset(" All ", &[])];
        assert_eq!(
            code(r.register("ns", &names(&["b"]), Some(&reserved), false)),
            "ERR_NEMO_LENS_RESERVED_PRESET_NAME"
        );
        assert_eq!(
            code(r.register("ns", &names(&["b"]), None, false)),
            "ERR_NEMO_LENS_NAMESPACE_REGISTERED"
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
