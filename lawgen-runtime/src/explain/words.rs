//! The words lawgen itself adds to explanations, in English and Russian.
//! Any other language gets English (labels and article texts still come in
//! the requested language when the package has them).

use super::tree::{Atom, Condition, Explanation, Phrase, Reason, Title};
use crate::program::{Level, Status, Strength, World};
use crate::Verdict;

/// The languages lawgen words explanations in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Lang {
    En,
    Ru,
}

impl Lang {
    /// `ru`, `ru-RU`, … are Russian; everything else is English.
    pub fn of(tag: &str) -> Lang {
        let primary = tag.split(['-', '_']).next().unwrap_or("");
        if primary.eq_ignore_ascii_case("ru") {
            Lang::Ru
        } else {
            Lang::En
        }
    }
}

/// What the first line of an explanation says of its literal.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Headline {
    Definitely,
    Defeasibly,
    Supported,
    Pending,
    /// A judgment atom nobody decided; `requested` when a rule instance
    /// reads it, so that a decision is asked for.
    Undecided {
        requested: bool,
    },
    NotConcluded,
}

impl Headline {
    /// The headline of an explanation, from its typed verdict.
    pub fn of(e: &Explanation) -> Headline {
        if e.undecided {
            return Headline::Undecided {
                requested: !e.requests.is_empty(),
            };
        }
        match e.verdict {
            Verdict::Definitely => Headline::Definitely,
            Verdict::Defeasibly => Headline::Defeasibly,
            Verdict::SupportedOnly => Headline::Supported,
            Verdict::Pending(_) => Headline::Pending,
            Verdict::NotConcluded => Headline::NotConcluded,
        }
    }
}

pub fn headline(lang: Lang, h: Headline) -> &'static str {
    let (en, ru) = match h {
        Headline::Definitely => ("DEFINITELY holds", "установлено ОПРЕДЕЛЁННО"),
        Headline::Defeasibly => (
            "DEFEASIBLY holds (not definitely)",
            "установлено ОСПОРИМО (не определённо)",
        ),
        Headline::Supported => (
            "only SUPPORTED (there are grounds, but it is not established)",
            "только ОБОСНОВАНО (основания есть, но вывод не установлен)",
        ),
        Headline::Pending => (
            "PENDING (holds only if pending judgments are decided for it)",
            "ОЖИДАЕТ РЕШЕНИЯ (выполняется, только если ожидаемые решения будут приняты в его пользу)",
        ),
        Headline::Undecided { requested: true } => (
            "UNDECIDED judgment (a decision is requested)",
            "НЕ РЕШЕНО (требуется решение)",
        ),
        // An undecided atom no rule instance reads is not requested: its
        // headline must not say that a decision is.
        Headline::Undecided { requested: false } => (
            "UNDECIDED judgment (no decision is requested: no rule needs it here)",
            "НЕ РЕШЕНО (решение не запрашивается: здесь оно не нужно ни одному правилу)",
        ),
        Headline::NotConcluded => ("NOT CONCLUDED", "НЕ УСТАНОВЛЕНО"),
    };
    match lang {
        Lang::En => en,
        Lang::Ru => ru,
    }
}

pub fn level(lang: Lang, l: Level, w: World) -> &'static str {
    match (lang, w, l) {
        (Lang::En, World::Certain, Level::Definite) => "definitely",
        (Lang::En, World::Certain, Level::Defeasible) => "defeasibly",
        (Lang::En, World::Certain, Level::Supported) => "supported",
        (Lang::En, World::Possible, Level::Definite) => "possibly definitely",
        (Lang::En, World::Possible, Level::Defeasible) => "possibly defeasibly",
        (Lang::En, World::Possible, Level::Supported) => "possibly supported",
        (Lang::Ru, World::Certain, Level::Definite) => "определённо",
        (Lang::Ru, World::Certain, Level::Defeasible) => "оспоримо",
        (Lang::Ru, World::Certain, Level::Supported) => "обосновано",
        (Lang::Ru, World::Possible, Level::Definite) => "возможно, определённо",
        (Lang::Ru, World::Possible, Level::Defeasible) => "возможно, оспоримо",
        (Lang::Ru, World::Possible, Level::Supported) => "возможно, обосновано",
    }
}

pub fn strength(lang: Lang, s: Strength) -> &'static str {
    match (lang, s) {
        (Lang::En, s) => s.as_str(),
        (Lang::Ru, Strength::Strict) => "строгое",
        (Lang::Ru, Strength::Defeasible) => "оспоримое",
        (Lang::Ru, Strength::Defeater) => "опровергающее",
    }
}

pub fn level_key(l: Level) -> &'static str {
    match l {
        Level::Definite => "definitely",
        Level::Defeasible => "defeasibly",
        Level::Supported => "supported",
    }
}

pub fn world_key(w: World) -> &'static str {
    match w {
        World::Certain => "certain",
        World::Possible => "possible",
    }
}

/// The short fixed words lawgen adds to explanations ("by rule", "given as
/// a fact", …). A word is a variant, not a key: one missing a translation
/// is a compile error, never an empty string.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Word {
    /// "by rule"
    ByRule,
    /// "rule"
    Rule,
    /// "given as a fact"
    Fact,
    /// "anchor"
    Anchor,
    /// "by closure policy"
    ByClosure,
    /// "snapshot"
    Snapshot,
    /// "(none)"
    NoneGiven,
    /// "complete as of"
    CompleteAsOf,
    /// "(not stated)"
    NotStated,
    /// "is not among the facts"
    NotAmongFacts,
    /// "is false"
    IsFalse,
    /// "undecided judgment — requested from"
    RequestedFrom,
    /// "undecided judgment — not requested from"
    NotRequestedFrom,
    /// "no rule instance whose other items may hold reads it"
    NoInstanceReadsIt,
    /// "discarded"
    Discarded,
    /// "defeated by"
    DefeatedBy,
    /// "under"
    Under,
    /// "priority"
    Priority,
    /// "applies and is not defeated (neither side has priority: the …"
    Ambiguous,
    /// "applies and is not defeated"
    Applies,
    /// "applies and is not defeated (a defeater: it blocks the concl…"
    Blocks,
    /// "is defeated by"
    IsDefeatedBy,
    /// "label"
    Label,
    /// "does not apply"
    DoesNotApply,
    /// "… (explanation too deep)"
    TooDeep,
    /// "judgment requests:"
    Requests,
    /// "to be decided by"
    ToBeDecidedBy,
    /// "set aside — its conditions hold here, so it would conclude t…"
    SetAsideWouldApply,
    /// "set aside by a derogation (its conditions do not hold here either)"
    SetAsideWouldNotApply,
    /// "set aside by derogation"
    ByDerogation,
    /// "edition"
    Edition,
    /// "not in force on"
    NotInForceOn,
    /// "in force from"
    InForceFrom,
    /// "to"
    To,
    /// "never in force"
    NeverInForce,
}

/// A word in the reader's language.
pub fn word(lang: Lang, w: Word) -> &'static str {
    let (en, ru) = match w {
        Word::ByRule => ("by rule", "по правилу"),
        Word::Rule => ("rule", "правило"),
        Word::Fact => ("given as a fact", "дано как факт"),
        Word::Anchor => ("anchor", "источник"),
        Word::ByClosure => ("by closure policy", "по правилу полноты"),
        Word::Snapshot => ("snapshot", "срез"),
        Word::NoneGiven => ("(none)", "(нет)"),
        Word::CompleteAsOf => ("complete as of", "полон на"),
        Word::NotStated => ("(not stated)", "(не указано)"),
        Word::NotAmongFacts => ("is not among the facts", "нет среди фактов"),
        Word::IsFalse => ("is false", "ложно"),
        Word::RequestedFrom => ("undecided judgment — requested from", "решение не принято — запрошено у"),
        Word::NotRequestedFrom => ("undecided judgment — not requested from", "решение не принято — не запрошено у"),
        Word::NoInstanceReadsIt => ("no rule instance whose other items may hold reads it", "его не читает ни одно применение правила, остальные условия которого могут выполниться"),
        Word::Discarded => ("discarded", "отброшено"),
        Word::DefeatedBy => ("defeated by", "побеждено правилом"),
        Word::Under => ("under", "в силу"),
        Word::Priority => ("priority", "приоритета"),
        Word::Ambiguous => ("applies and is not defeated (neither side has priority: the conflict is ambiguous)", "применимо и не побеждено (ни у одной стороны нет приоритета: конфликт неоднозначен)"),
        Word::Applies => ("applies and is not defeated", "применимо и не побеждено"),
        Word::Blocks => ("applies and is not defeated (a defeater: it blocks the conclusion without concluding the opposite)", "применимо и не побеждено (опровергающее правило: оно блокирует вывод, не утверждая противоположного)"),
        Word::IsDefeatedBy => ("is defeated by", "побеждено правилом"),
        Word::Label => ("label", "описание"),
        Word::DoesNotApply => ("does not apply", "не применяется"),
        Word::TooDeep => ("… (explanation too deep)", "… (объяснение слишком глубокое)"),
        Word::Requests => ("judgment requests:", "запросы решений:"),
        Word::ToBeDecidedBy => ("to be decided by", "решает"),
        Word::SetAsideWouldApply => ("set aside — its conditions hold here, so it would conclude this, but a derogation took it out of the law applied", "исключено — его условия здесь выполнены, и оно заключило бы это, но изъятие вывело его из применяемых норм"),
        Word::SetAsideWouldNotApply => ("set aside by a derogation (its conditions do not hold here either)", "исключено изъятием (его условия здесь и так не выполнены)"),
        Word::ByDerogation => ("set aside by derogation", "исключено изъятием"),
        Word::Edition => ("edition", "редакция"),
        Word::NotInForceOn => ("not in force on", "не действует на"),
        Word::InForceFrom => ("in force from", "действует с"),
        Word::To => ("to", "по"),
        Word::NeverInForce => ("never in force", "не действует ни в какой день"),
    };
    match lang {
        Lang::En => en,
        Lang::Ru => ru,
    }
}

/// A rule's negated condition, `not established p(x)`, in the reader's
/// language (the item a why-not names before saying why it fails).
pub fn negated_condition(lang: Lang, status: Status, atom: &str) -> String {
    match (lang, status) {
        (Lang::En, _) => format!("not {} {atom}", status.as_str()),
        (Lang::Ru, Status::Established) => format!("не установлено {atom}"),
        (Lang::Ru, Status::Supported) => format!("не обосновано {atom}"),
    }
}

/// A body item as a why-not names it: `p(x)`, `50 > 30`, `not established p(x)`.
pub fn condition(lang: Lang, c: &Condition) -> String {
    match c {
        Condition::Holds(atom) => atom.to_string(),
        Condition::Compare(cmp) => cmp.to_string(),
        Condition::Not { status, atom } => negated_condition(lang, *status, &atom.to_string()),
        Condition::InForce => "in force on the case's date".to_owned(),
    }
}

/// Atoms as a list names them: by their text, each once.
fn atom_list(atoms: &[Atom]) -> String {
    let texts: std::collections::BTreeSet<String> = atoms.iter().map(Atom::to_string).collect();
    texts.into_iter().collect::<Vec<_>>().join(", ")
}

/// "is not established", "is false", … after an item.
pub fn reason(lang: Lang, r: &Reason) -> String {
    match (lang, r) {
        (Lang::En, Reason::NotAt { level, world }) => {
            let base = match level {
                Level::Definite => "is not definitely concluded",
                Level::Defeasible => "is not established",
                Level::Supported => "is not supported",
            };
            match world {
                World::Certain => base.to_owned(),
                World::Possible => format!("{base}, whatever the pending judgments decide"),
            }
        }
        (Lang::En, Reason::False) => "is false".into(),
        (Lang::En, Reason::InnerHolds { status }) => format!("fails: it is {}", status.as_str()),
        (Lang::Ru, Reason::NotAt { level, world }) => {
            let base = match level {
                Level::Definite => "не установлено определённо",
                Level::Defeasible => "не установлено",
                Level::Supported => "не обосновано",
            };
            match world {
                World::Certain => base.to_owned(),
                World::Possible => format!("{base}, как бы ни были приняты ожидаемые решения"),
            }
        }
        (Lang::Ru, Reason::False) => "ложно".into(),
        (Lang::Ru, Reason::InnerHolds { status }) => format!(
            "не выполнено: оно {}",
            match status {
                Status::Established => "установлено",
                Status::Supported => "обосновано",
            }
        ),
    }
}

pub fn title(lang: Lang, t: &Title) -> String {
    match (lang, t) {
        (Lang::En, Title::Attackers { complement }) => {
            format!("attackers (rules for {complement}):")
        }
        (Lang::En, Title::WhyNotEstablished) => "why it is not established:".into(),
        (Lang::En, Title::ComplementDefinite { lit, world }) => match world {
            World::Certain => {
                format!("why it is not established: the complement {lit} is definitely concluded")
            }
            World::Possible => format!(
                "why it is not established: the complement {lit} is definitely concluded in \
                 the possible model (it may hold, depending on pending judgments)"
            ),
        },
        (Lang::Ru, Title::Attackers { complement }) => {
            format!("возражающие правила (правила для {complement}):")
        }
        (Lang::Ru, Title::WhyNotEstablished) => "почему это не установлено:".into(),
        (Lang::Ru, Title::ComplementDefinite { lit, world }) => match world {
            World::Certain => {
                format!("почему это не установлено: противоположное {lit} установлено определённо")
            }
            World::Possible => format!(
                "почему это не установлено: противоположное {lit} возможно установлено \
                 определённо (зависит от ожидаемых решений)"
            ),
        },
    }
}

pub fn phrase(lang: Lang, p: &Phrase) -> String {
    match lang {
        Lang::En => match p {
            Phrase::NotConcluded => "not concluded".into(),
            Phrase::ComplementIsFact { lit } => format!("{lit} is given as a fact"),
            Phrase::NotGiven => "it is not given as a fact".into(),
            Phrase::NoClosure { pred } => {
                format!("no closure policy makes the list of {pred} facts exhaustive")
            }
            Phrase::ClosureCoversOnly { closure, domain } => format!(
                "closure policy {closure} covers only {domain}, which is not definitely concluded"
            ),
            Phrase::DecidedOtherWay { lit } => format!("decided the other way: {lit} is given"),
            Phrase::NotDecided => "not decided".into(),
            Phrase::NoRule => "no rule concludes it and it is not a fact".into(),
            Phrase::OnlySupported => "only supported".into(),
            Phrase::Pending => "pending".into(),
            Phrase::UndecidedJudgment => "undecided judgment".into(),
            Phrase::NoValue {
                institutional,
                pending,
            } => {
                let base = if *institutional {
                    "not concluded for any value of `_`"
                } else {
                    "no matching fact is given"
                };
                if pending.is_empty() {
                    base.into()
                } else {
                    format!("{base}; pending for {}", atom_list(pending))
                }
            }
            Phrase::NoDerivation => "no derivation found (please report this)".into(),
        },
        Lang::Ru => match p {
            Phrase::NotConcluded => "не установлено".into(),
            Phrase::ComplementIsFact { lit } => format!("{lit} дано как факт"),
            Phrase::NotGiven => "не дано как факт".into(),
            Phrase::NoClosure { pred } => {
                format!("ни одно правило полноты не делает список фактов {pred} исчерпывающим")
            }
            Phrase::ClosureCoversOnly { closure, domain } => format!(
                "правило полноты {closure} охватывает только {domain}, а это не установлено определённо"
            ),
            Phrase::DecidedOtherWay { lit } => format!("решено иначе: дано {lit}"),
            Phrase::NotDecided => "решение не принято".into(),
            Phrase::NoRule => "ни одно правило не выводит это, и это не факт".into(),
            Phrase::OnlySupported => "только обосновано".into(),
            Phrase::Pending => "ожидает решения".into(),
            Phrase::UndecidedJudgment => "решение не принято".into(),
            Phrase::NoValue {
                institutional,
                pending,
            } => {
                let base = if *institutional {
                    "не установлено ни для какого значения `_`"
                } else {
                    "подходящего факта нет"
                };
                if pending.is_empty() {
                    base.into()
                } else {
                    format!("{base}; ожидает решения для {}", atom_list(pending))
                }
            }
            Phrase::NoDerivation => "вывод не найден (сообщите об этом, пожалуйста)".into(),
        },
    }
}
