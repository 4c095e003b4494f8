//! Diagnostic texts, byte for byte those of the TypeScript twin (`src/backends/js/messages.ts`),
//! so the differential tests compare whole messages across backends. Names are quoted as
//! given, without escaping.

use crate::suggest::suggestions;
use crate::Diagnostic;

fn q(name: &str) -> String {
    format!("\"{name}\"")
}

fn list(names: &[String]) -> String {
    if names.is_empty() {
        return "(none)".to_owned();
    }
    names
        .iter()
        .map(|name| q(name))
        .collect::<Vec<_>>()
        .join(", ")
}

/// What a spec report offers instead of the names it could not find.
#[derive(Debug)]
pub struct Available {
    pub groups: Vec<String>,
    pub presets: Vec<String>,
    pub namespaces: Vec<String>,
}

/// How many names of each kind a report lists as available: a registry of 100k groups must
/// not turn one warning into a megabyte of stderr.
pub const AVAILABLE_LIMIT: usize = 20;

fn some(names: &[String]) -> String {
    if names.len() <= AVAILABLE_LIMIT {
        return list(names);
    }
    format!(
        "{} and {} more",
        list(&names[..AVAILABLE_LIMIT]),
        names.len() - AVAILABLE_LIMIT
    )
}

/// How many tokens of a spec, and of its pending names, a spec report shows; the rest are
/// counted. A 10 MB spec in an env var must not turn one warning into 20 MB of stderr.
pub const SPEC_TOKEN_LIMIT: usize = 20;

/// How many characters (code points) of one token a spec report shows.
pub const TOKEN_CHAR_LIMIT: usize = 200;

/// One token, cut at `TOKEN_CHAR_LIMIT` code points with the rest counted.
fn clipped(token: &str) -> String {
    match token.char_indices().nth(TOKEN_CHAR_LIMIT) {
        None => token.to_owned(),
        Some((cut, _)) => format!(
            "{}…(+{} characters)",
            &token[..cut],
            token[cut..].chars().count()
        ),
    }
}

/// The spec as a report quotes it: whole when short, else its first tokens and a count.
fn spec_shown(spec: &str) -> String {
    let mut parts = spec.split(',');
    let shown: Vec<String> = parts.by_ref().take(SPEC_TOKEN_LIMIT).map(clipped).collect();
    let rest = parts.count();
    let quoted = q(&shown.join(","));
    if rest == 0 {
        quoted
    } else {
        format!("{quoted} and {rest} more tokens")
    }
}

/// Pending names as a report lists them: at most `SPEC_TOKEN_LIMIT`, the rest counted.
fn pending_shown(names: &[String]) -> String {
    let shown: Vec<String> = names
        .iter()
        .take(SPEC_TOKEN_LIMIT)
        .map(|name| clipped(name))
        .collect();
    if names.len() <= SPEC_TOKEN_LIMIT {
        list(&shown)
    } else {
        format!(
            "{} and {} more",
            list(&shown),
            names.len() - SPEC_TOKEN_LIMIT
        )
    }
}

fn available(a: &Available) -> String {
    format!(
        "Available groups: {}; presets: {}; namespaces: {}.",
        some(&a.groups),
        some(&a.presets),
        some(&a.namespaces)
    )
}

fn diagnostic(code: &'static str, message: String) -> Diagnostic {
    Diagnostic { code, message }
}

pub fn invalid_namespace() -> Diagnostic {
    diagnostic(
        "ERR_NEMO_LENS_INVALID_NAMESPACE",
        "nemo-lens: the namespace is empty. Register under your library's name, e.g. register(\"megatron\", [\"step\"]).".to_owned(),
    )
}

pub fn empty_group_name(namespace: &str, raw: &str) -> Diagnostic {
    diagnostic(
        "ERR_NEMO_LENS_EMPTY_GROUP_NAME",
        format!(
            "nemo-lens: namespace {} lists group name {}, which is empty after trimming whitespace. Remove it or name the group.",
            q(namespace),
            q(raw)
        ),
    )
}

pub fn reserved_group_name(namespace: &str, raw: &str) -> Diagnostic {
    diagnostic(
        "ERR_NEMO_LENS_RESERVED_GROUP_NAME",
        format!(
            "nemo-lens: namespace {} lists group name {}, which normalises to \"all\", reserved for every registered group. Rename the group.",
            q(namespace),
            q(raw)
        ),
    )
}

pub fn reserved_preset_name(namespace: &str, raw: &str) -> Diagnostic {
    diagnostic(
        "ERR_NEMO_LENS_RESERVED_PRESET_NAME",
        format!(
            "nemo-lens: namespace {} defines preset {}, which normalises to \"all\", reserved for every registered group. Rename the preset.",
            q(namespace),
            q(raw)
        ),
    )
}

pub fn namespace_registered(namespace: &str) -> Diagnostic {
    diagnostic(
        "ERR_NEMO_LENS_NAMESPACE_REGISTERED",
        format!(
            "nemo-lens: namespace {} is already registered. Register it once, or pass {{ allowOverride: true }} to replace its groups and presets.",
            q(namespace)
        ),
    )
}

pub fn namespace_not_registered(namespace: &str, namespaces: &[String]) -> Diagnostic {
    diagnostic(
        "ERR_NEMO_LENS_NAMESPACE_NOT_REGISTERED",
        format!(
            "nemo-lens: namespace {} is not registered (namespaces are case-sensitive). Registered namespaces: {}.",
            q(namespace),
            list(namespaces)
        ),
    )
}

pub fn group_shared(namespace: &str, other: &str, groups: &[String]) -> Diagnostic {
    diagnostic(
        "NEMO_LENS_GROUP_SHARED",
        format!(
            "nemo-lens: namespace {} registers {}, also registered by namespace {}; the group is shared: one gate turns on both libraries' spans. Pass {{ allowOverride: true }} if this is intended.",
            q(namespace),
            list(groups),
            q(other)
        ),
    )
}

pub fn preset_member_unregistered(namespace: &str, preset: &str, members: &[String]) -> Diagnostic {
    diagnostic(
        "NEMO_LENS_PRESET_MEMBER_UNREGISTERED",
        format!(
            "nemo-lens: preset {} of namespace {} names {}, which no namespace has registered; kept and ignored until a namespace registers it (or a typo).",
            q(preset),
            q(namespace),
            list(members)
        ),
    )
}

pub fn late_registration(namespace: &str) -> Diagnostic {
    diagnostic(
        "NEMO_LENS_LATE_REGISTRATION",
        format!(
            "nemo-lens: namespace {} registered after setupTelemetry(); its groups take effect from now on. Register span groups when your library is imported, before setup.",
            q(namespace)
        ),
    )
}

pub fn no_groups_registered(spec: &str) -> Diagnostic {
    diagnostic(
        "NEMO_LENS_NO_GROUPS_REGISTERED",
        format!(
            "nemo-lens: span-group spec {} selects nothing: no span groups are registered in this process. Import the libraries that register them before setup, or check NEMO_LENS_SPAN_GROUPS.",
            spec_shown(spec)
        ),
    )
}

/// ` Did you mean "per_step" for "per_stpe", ...?` for the pending tokens close to a
/// registered group or preset (see suggest.rs), or nothing.
fn did_you_mean(pending: &[String], a: &Available) -> String {
    let found = suggestions(pending, &a.groups, &a.presets);
    if found.is_empty() {
        return String::new();
    }
    let pairs: Vec<String> = found
        .iter()
        .map(|(token, name)| format!("{} for {}", q(name), q(token)))
        .collect();
    format!(" Did you mean {}?", pairs.join(", "))
}

pub fn spec_pending(spec: &str, pending: &[String], a: &Available) -> Diagnostic {
    diagnostic(
        "NEMO_LENS_SPEC_PENDING",
        format!(
            "nemo-lens: span-group spec {} names {}, which nothing in this process registers; pending until a library registers it (fine when another process of the job owns it; otherwise a typo). {}{}",
            spec_shown(spec),
            pending_shown(pending),
            available(a),
            did_you_mean(pending, a)
        ),
    )
}

pub fn spec_resolved_empty(spec: &str, a: &Available) -> Diagnostic {
    diagnostic(
        "NEMO_LENS_SPEC_RESOLVED_EMPTY",
        format!(
            "nemo-lens: span-group spec {} resolved to no groups (its presets are empty here), so no spans will be emitted. {}",
            spec_shown(spec),
            available(a)
        ),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(values: &[&str]) -> Vec<String> {
        values.iter().map(|v| (*v).to_owned()).collect()
    }

    #[test]
    fn available_lists_stop_at_the_limit() {
        let many: Vec<String> = (0..AVAILABLE_LIMIT + 3).map(|i| format!("g{i}")).collect();
        let listed = some(&many);
        assert!(listed.ends_with(&format!("\"g{}\" and 3 more", AVAILABLE_LIMIT - 1)));
        assert_eq!(
            some(&many[..AVAILABLE_LIMIT]),
            list(&many[..AVAILABLE_LIMIT])
        );
    }

    #[test]
    fn lists_quote_names_or_say_none() {
        assert_eq!(list(&[]), "(none)");
        assert_eq!(list(&names(&["a", ""])), "\"a\", \"\"");
    }

    #[test]
    fn spec_pending_names_what_is_available() {
        let a = Available {
            groups: names(&["step"]),
            presets: names(&["all", "per_step"]),
            namespaces: vec![],
        };
        let d = spec_pending("Typo,step", &names(&["typo"]), &a);
        assert_eq!(d.code, "NEMO_LENS_SPEC_PENDING");
        assert_eq!(
            d.message,
            "nemo-lens: span-group spec \"Typo,step\" names \"typo\", which nothing in this process registers; \
             pending until a library registers it (fine when another process of the job owns it; otherwise a typo). \
             Available groups: \"step\"; presets: \"all\", \"per_step\"; namespaces: (none)."
        );
    }

    #[test]
    fn spec_reports_show_at_most_the_token_limit() {
        let short = "a,b, c ";
        assert_eq!(spec_shown(short), q(short));
        let tokens: Vec<String> = (0..SPEC_TOKEN_LIMIT + 5).map(|i| format!("t{i}")).collect();
        let shown = spec_shown(&tokens.join(","));
        assert_eq!(
            shown,
            format!(
                "{} and 5 more tokens",
                q(&tokens[..SPEC_TOKEN_LIMIT].join(","))
            )
        );
        assert!(
            pending_shown(&tokens).ends_with(&format!("\"t{}\" and 5 more", SPEC_TOKEN_LIMIT - 1))
        );
        assert_eq!(pending_shown(&tokens[..3]), list(&tokens[..3]));
    }

    #[test]
    fn a_huge_spec_gives_a_short_report() {
        let one_token = "é".repeat(5_000_000);
        let d = no_groups_registered(&one_token);
        assert!(d.message.len() < 1_000, "{} bytes", d.message.len());
        assert!(d
            .message
            .contains(&format!("…(+{} characters)", 5_000_000 - TOKEN_CHAR_LIMIT)));
        let many = "typo,".repeat(2_000_000);
        let pending: Vec<String> = (0..100_000).map(|i| format!("p{i}")).collect();
        let a = Available {
            groups: names(&["step"]),
            presets: vec![],
            namespaces: vec![],
        };
        let d = spec_pending(&many, &pending, &a);
        assert!(d.message.len() < 2_000, "{} bytes", d.message.len());
        assert!(d
            .message
            .contains(&format!("and {} more tokens", 2_000_001 - SPEC_TOKEN_LIMIT)));
        assert!(d
            .message
            .contains(&format!("and {} more,", 100_000 - SPEC_TOKEN_LIMIT)));
    }

    #[test]
    fn spec_pending_suggests_near_misses() {
        let a = Available {
            groups: names(&["step", "layer"]),
            presets: names(&["all", "per_step"]),
            namespaces: names(&["trainer"]),
        };
        let d = spec_pending(
            "per_stpe,lyer,other",
            &names(&["per_stpe", "lyer", "other"]),
            &a,
        );
        assert!(
            d.message.ends_with(
                "namespaces: \"trainer\". Did you mean \"per_step\" for \"per_stpe\", \"layer\" for \"lyer\"?"
            ),
            "{}",
            d.message
        );
    }

    #[test]
    fn braces_survive_formatting() {
        assert!(namespace_registered("mega")
            .message
            .contains("{ allowOverride: true }"));
        assert!(group_shared("rl", "mega", &names(&["step"]))
            .message
            .contains("{ allowOverride: true }"));
    }
}
