//! Names a reviewer can trust: a package is reviewed through its rendering,
//! so no name may read as another. Following Unicode TR #39 (Security
//! Mechanisms), as rustc's `confusable_idents` and `mixed_script_confusables`
//! lints do, every name — the local part of every id, and every type,
//! parameter and variable name — is refused when it:
//!
//! - holds an invisible character (E017): a format character (bidi
//!   embeddings, overrides and isolates, zero-width spaces and joiners, the
//!   byte-order mark, tags) or another default-ignorable one (variation
//!   selectors, Hangul fillers). `\u{202e}eud_enif\u{202c}` displays as
//!   `fine_due`;
//! - mixes scripts (E018): its resolved script set (TR #39, characters of
//!   the Common and Inherited scripts fitting any) is empty, beyond the
//!   mixtures TR #39's *highly restrictive* level allows (Latin with Han,
//!   Japanese or Korean). `fine_duе`, its last letter Cyrillic, does;
//! - is confusable with another name of the package (E019): the two have
//!   the same TR #39 skeleton and one of them is not ASCII (as rustc, ASCII
//!   pairs such as `rn`/`m` are left alone). A Cyrillic `сор` beside a
//!   Latin `cop` is.
//!
//! Any script may be used, one per name. Labels and texts are not names:
//! they may hold anything, and every rendering shows their format
//! characters visibly (`lawgen_runtime::text`).

use crate::diagnostics::{pointer_push, Code, Diagnostics, Location};
use crate::program::local_name;
use crate::syntax::{NodeKind, Package};
use lawgen_runtime::text::Shown;
use std::collections::HashMap;
use unicode_script::{Script, ScriptExtension};
use unicode_security::general_security_profile::IdentifierType;
use unicode_security::mixed_script::AugmentedScriptSet;
use unicode_security::GeneralSecurityProfile;

/// One name of the package, and where it is.
struct Name<'a> {
    /// What it names: `predicate name`, `type name`, `variable`, ….
    what: &'static str,
    name: &'a str,
    node: &'a str,
    ptr: String,
}

/// Checks every name of `pkg` (see the module docs).
pub(super) fn check(pkg: &Package, diags: &mut Diagnostics) {
    let names = names(pkg);
    let mut ok = vec![true; names.len()];
    for (i, n) in names.iter().enumerate() {
        if !refused_alone(n.name) {
            continue;
        }
        if let Some(c) = n.name.chars().find(|&c| invisible(c)) {
            ok[i] = false;
            diags.error(
                Code::InvisibleInName,
                Location::new(Some(n.node), &n.ptr),
                format!(
                    "the {} `{}` holds the invisible character U+{:04X}",
                    n.what,
                    Shown(n.name),
                    c as u32
                ),
                "names may be in any script but hold no invisible character (a bidi control, a \
                 zero-width or other format character): it can make a name read as another; \
                 remove it",
            );
        } else if let Some(problem) = mixed_script(n.name) {
            ok[i] = false;
            diags.error(
                Code::MixedScriptName,
                Location::new(Some(n.node), &n.ptr),
                format!(
                    "the {} `{}` mixes scripts: {problem}",
                    n.what,
                    Shown(n.name)
                ),
                "write each name in one script (Latin may mix only with Han, Japanese or \
                 Korean, as Unicode TR #39 allows), so that no letter can pass for one of \
                 another script",
            );
        }
    }
    // Names that read alike: one report per distinct name, against the
    // first name it looks like. Two ASCII names never count, so a package
    // of ASCII names (most) computes no skeleton.
    if names.iter().all(|n| n.name.is_ascii()) {
        return;
    }
    let mut seen: HashMap<String, usize> = HashMap::new();
    let mut reported: std::collections::HashSet<&str> = Default::default();
    for (i, n) in names.iter().enumerate() {
        if !ok[i] {
            continue;
        }
        let skeleton = skeleton(n.name);
        match seen.get(&skeleton) {
            None => {
                seen.insert(skeleton, i);
            }
            Some(&j) => {
                let first = &names[j];
                if first.name == n.name
                    || (first.name.is_ascii() && n.name.is_ascii())
                    || !reported.insert(n.name)
                {
                    continue;
                }
                diags.error(
                    Code::ConfusableNames,
                    Location::new(Some(n.node), &n.ptr),
                    format!(
                        "the {} `{}` looks like the {} `{}` of node `{}`",
                        n.what,
                        Shown(n.name),
                        first.what,
                        Shown(first.name),
                        Shown(first.node)
                    ),
                    "two names that read alike (Unicode TR #39 confusables) let one pass for \
                     the other in review: rename one of them",
                );
            }
        }
    }
}

/// Whether `name` is refused on its own (E017 or E018), whatever other
/// names the package has: for generators of valid packages.
pub fn refused_alone(name: &str) -> bool {
    !name.is_ascii() && (name.chars().any(invisible) || mixed_script(name).is_some())
}

/// The Unicode TR #39 skeleton of `name`: two names are confusable (E019)
/// when theirs are equal and one of them is not ASCII.
pub fn skeleton(name: &str) -> String {
    unicode_security::skeleton(name).collect()
}

/// Every name of `pkg`, in document order.
fn names(pkg: &Package) -> Vec<Name<'_>> {
    let mut out = Vec::new();
    for n in &pkg.nodes {
        let node = n.id.as_str();
        let what = match &n.kind {
            NodeKind::TypeDecl { .. } => "type id",
            NodeKind::Relation(_) => "predicate name",
            NodeKind::Constant { .. } => "constant name",
            NodeKind::Rule(_) => "rule id",
            _ => "id",
        };
        out.push(Name {
            what,
            name: local_name(&n.id),
            node,
            ptr: pointer_push(&n.ptr, "id"),
        });
        match &n.kind {
            NodeKind::TypeDecl { name } if name != local_name(&n.id) => out.push(Name {
                what: "type name",
                name,
                node,
                ptr: pointer_push(&n.ptr, "name"),
            }),
            NodeKind::Relation(r) => {
                for (i, p) in r.params.iter().enumerate() {
                    if let Some(name) = &p.name {
                        let ptr = pointer_push(&pointer_push(&n.ptr, "parameters"), i.to_string());
                        out.push(Name {
                            what: "parameter name",
                            name,
                            node,
                            ptr: pointer_push(&ptr, "name"),
                        });
                    }
                }
            }
            NodeKind::Rule(r) => {
                for v in &r.variables {
                    out.push(Name {
                        what: "variable",
                        name: &v.name,
                        node,
                        ptr: pointer_push(&v.ptr, "id"),
                    });
                }
            }
            _ => {}
        }
    }
    out
}

/// A character a name may not hold: a format character (or a line or
/// paragraph separator), or a default-ignorable one, which displays as
/// nothing.
fn invisible(c: char) -> bool {
    lawgen_runtime::text::is_format(c)
        || c.identifier_type() == Some(IdentifierType::Default_Ignorable)
}

/// Why `name` is not in one script (TR #39's highly restrictive level), if
/// it is not: the first character that leaves no script in common with those
/// before it.
fn mixed_script(name: &str) -> Option<String> {
    let mut all = AugmentedScriptSet::default();
    let mut non_latin = AugmentedScriptSet::default();
    let mut culprit = None;
    for c in name.chars() {
        let set = AugmentedScriptSet::for_char(c);
        let before = all;
        all.intersect_with(set);
        if all.is_empty() && culprit.is_none() {
            culprit = Some((c, before));
        }
        if !set.base.contains_script(Script::Latin) {
            non_latin.intersect_with(set);
        }
    }
    if !all.is_empty() || non_latin.hanb || non_latin.jpan || non_latin.kore {
        return None;
    }
    let (c, before) = culprit?;
    Some(format!(
        "U+{:04X} (`{}`) is {}, the letters before it {}",
        c as u32,
        Shown(&c.to_string()),
        scripts(ScriptExtension::from(c).into()),
        scripts(before)
    ))
}

/// A script set in words: `Cyrillic`, `Latin or Greek`.
fn scripts(s: AugmentedScriptSet) -> String {
    let mut v: Vec<String> = s.base.iter().map(|x| x.full_name().to_owned()).collect();
    if v.is_empty() {
        v.extend(
            [(s.hanb, "Han"), (s.jpan, "Japanese"), (s.kore, "Korean")]
                .into_iter()
                .filter(|(on, _)| *on)
                .map(|(_, w)| w.to_owned()),
        );
    }
    v.join(" or ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn invisible_characters() {
        for c in [
            '\u{202e}',
            '\u{200b}',
            '\u{200d}',
            '\u{2066}',
            '\u{feff}',
            '\u{fe0f}',
            '\u{3164}',
            '\u{ad}',
            '\u{e0041}',
            '\u{2028}',
        ] {
            assert!(invisible(c), "U+{:04X}", c as u32);
        }
        for c in ['a', 'е', 'ж', 'ß', '\u{301}', '日', ' ', '-'] {
            assert!(!invisible(c), "U+{:04X}", c as u32);
        }
    }

    #[test]
    fn one_script_per_name() {
        for ok in [
            "fine_due",
            "ход_ферзя",
            "ход_2",
            "δίκη",
            "e\u{301}tat",
            "日本語_kanji",
            "ひらがな漢字",
            "한국어_abc",
            "قانون",
            "𝐟𝐢𝐧𝐞",
            "has dash",
            "😀",
        ] {
            assert_eq!(mixed_script(ok), None, "{ok}");
        }
        assert_eq!(
            mixed_script("fine_duе").as_deref(),
            Some("U+0435 (`е`) is Cyrillic, the letters before it Latin")
        );
        assert!(mixed_script("раypal").is_some());
        assert!(mixed_script("αβγ_abc").is_some());
        assert!(mixed_script("ход_move").is_some());
    }
}
