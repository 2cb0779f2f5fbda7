//! The words lawgen itself adds to explanations, in English and Russian.
//! Any other language gets English (labels and article texts still come in
//! the requested language when the package has them).

use super::tree::{Phrase, Reason, Title};
use crate::program::{Level, Status, Strength, World};

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

pub fn headline(lang: Lang, verdict: &str) -> &'static str {
    match (lang, verdict) {
        (Lang::En, "definitely") => "DEFINITELY holds",
        (Lang::En, "defeasibly") => "DEFEASIBLY holds (not definitely)",
        (Lang::En, "supported") => {
            "only SUPPORTED (there are grounds, but it is not established)"
        }
        (Lang::En, "pending") => "PENDING (holds only if pending judgments are decided for it)",
        (Lang::En, "undecided") => "UNDECIDED judgment (a decision is requested)",
        (Lang::En, "undecided, not requested") => {
            "UNDECIDED judgment (no decision is requested: no rule needs it here)"
        }
        (Lang::En, _) => "NOT CONCLUDED",
        (Lang::Ru, "definitely") => "установлено ОПРЕДЕЛЁННО",
        (Lang::Ru, "defeasibly") => "установлено ОСПОРИМО (не определённо)",
        (Lang::Ru, "supported") => "только ОБОСНОВАНО (основания есть, но вывод не установлен)",
        (Lang::Ru, "pending") => {
            "ОЖИДАЕТ РЕШЕНИЯ (выполняется, только если ожидаемые решения будут приняты в его пользу)"
        }
        (Lang::Ru, "undecided") => "НЕ РЕШЕНО (требуется решение)",
        (Lang::Ru, "undecided, not requested") => {
            "НЕ РЕШЕНО (решение не запрашивается: здесь оно не нужно ни одному правилу)"
        }
        (Lang::Ru, _) => "НЕ УСТАНОВЛЕНО",
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

/// "by rule", "given as a fact", … (short fixed words).
pub fn word(lang: Lang, key: &str) -> &'static str {
    match (lang, key) {
        (Lang::En, "by rule") => "by rule",
        (Lang::En, "rule") => "rule",
        (Lang::En, "fact") => "given as a fact",
        (Lang::En, "anchor") => "anchor",
        (Lang::En, "by closure") => "by closure policy",
        (Lang::En, "snapshot") => "snapshot",
        (Lang::En, "none") => "(none)",
        (Lang::En, "complete as of") => "complete as of",
        (Lang::En, "not stated") => "(not stated)",
        (Lang::En, "not among facts") => "is not among the facts",
        (Lang::En, "is false") => "is false",
        (Lang::En, "is not") => "is not",
        (Lang::En, "requested from") => "undecided judgment — requested from",
        (Lang::En, "not requested from") => "undecided judgment — not requested from",
        (Lang::En, "no instance reads it") => {
            "no rule instance whose other items may hold reads it"
        }
        (Lang::En, "discarded") => "discarded",
        (Lang::En, "defeated by") => "defeated by",
        (Lang::En, "under") => "under",
        (Lang::En, "priority") => "priority",
        (Lang::En, "ambiguous") => {
            "applies and is not defeated (neither side has priority: the conflict is ambiguous)"
        }
        (Lang::En, "applies") => "applies and is not defeated",
        (Lang::En, "blocks") => {
            "applies and is not defeated (a defeater: it blocks the conclusion without concluding the opposite)"
        }
        (Lang::En, "is defeated by") => "is defeated by",
        (Lang::En, "label") => "label",
        (Lang::En, "does not apply") => "does not apply",
        (Lang::En, "too deep") => "… (explanation too deep)",
        (Lang::En, "requests") => "judgment requests:",
        (Lang::En, "to be decided by") => "to be decided by",
        (Lang::En, "set aside, would apply") => {
            "set aside — its conditions hold here, so it would conclude this, but a derogation took it out of the law applied"
        }
        (Lang::En, "set aside, would not apply") => {
            "set aside by a derogation (its conditions do not hold here either)"
        }
        (Lang::En, "by derogation") => "set aside by derogation",
        (Lang::En, "edition") => "edition",
        (Lang::En, "not in force on") => "not in force on",
        (Lang::En, "in force from") => "in force from",
        (Lang::En, "to") => "to",
        (Lang::En, "never in force") => "never in force",
        (Lang::Ru, "by rule") => "по правилу",
        (Lang::Ru, "rule") => "правило",
        (Lang::Ru, "fact") => "дано как факт",
        (Lang::Ru, "anchor") => "источник",
        (Lang::Ru, "by closure") => "по правилу полноты",
        (Lang::Ru, "snapshot") => "срез",
        (Lang::Ru, "none") => "(нет)",
        (Lang::Ru, "complete as of") => "полон на",
        (Lang::Ru, "not stated") => "(не указано)",
        (Lang::Ru, "not among facts") => "нет среди фактов",
        (Lang::Ru, "is false") => "ложно",
        (Lang::Ru, "is not") => "не",
        (Lang::Ru, "requested from") => "решение не принято — запрошено у",
        (Lang::Ru, "not requested from") => "решение не принято — не запрошено у",
        (Lang::Ru, "no instance reads it") => {
            "его не читает ни одно применение правила, остальные условия которого могут выполниться"
        }
        (Lang::Ru, "discarded") => "отброшено",
        (Lang::Ru, "defeated by") => "побеждено правилом",
        (Lang::Ru, "under") => "в силу",
        (Lang::Ru, "priority") => "приоритета",
        (Lang::Ru, "ambiguous") => {
            "применимо и не побеждено (ни у одной стороны нет приоритета: конфликт неоднозначен)"
        }
        (Lang::Ru, "applies") => "применимо и не побеждено",
        (Lang::Ru, "blocks") => {
            "применимо и не побеждено (опровергающее правило: оно блокирует вывод, не утверждая противоположного)"
        }
        (Lang::Ru, "is defeated by") => "побеждено правилом",
        (Lang::Ru, "label") => "описание",
        (Lang::Ru, "does not apply") => "не применяется",
        (Lang::Ru, "too deep") => "… (объяснение слишком глубокое)",
        (Lang::Ru, "requests") => "запросы решений:",
        (Lang::Ru, "to be decided by") => "решает",
        (Lang::Ru, "set aside, would apply") => {
            "исключено — его условия здесь выполнены, и оно заключило бы это, но изъятие вывело его из применяемых норм"
        }
        (Lang::Ru, "set aside, would not apply") => {
            "исключено изъятием (его условия здесь и так не выполнены)"
        }
        (Lang::Ru, "by derogation") => "исключено изъятием",
        (Lang::Ru, "edition") => "редакция",
        (Lang::Ru, "not in force on") => "не действует на",
        (Lang::Ru, "in force from") => "действует с",
        (Lang::Ru, "to") => "по",
        (Lang::Ru, "never in force") => "не действует ни в какой день",
        (_, other) => {
            debug_assert!(false, "no word for {other}");
            ""
        }
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
        (Lang::En, Reason::InnerHolds { status }) => format!("fails: it is {status}"),
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
            if *status == "established" {
                "установлено"
            } else {
                "обосновано"
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
                    format!("{base}; pending for {}", pending.join(", "))
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
                    format!("{base}; ожидает решения для {}", pending.join(", "))
                }
            }
            Phrase::NoDerivation => "вывод не найден (сообщите об этом, пожалуйста)".into(),
        },
    }
}
