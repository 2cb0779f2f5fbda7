//! The compiler's diagnostic codes: everything a package, a text-form file,
//! an import closure or `lawgen lint` can report. The numbering groups codes
//! by the stage that reports them: `E00x` reading, `E01x` names, `E02x`
//! types, `E03x` safety, `E04x` priorities, `E05x` closures, `E06x`
//! judgments, `E07x` strata, `E09x` resource limits, `E10x` imports, `E11x`
//! the text form; `W0xx` are the warnings of `lawgen lint`. The runtime owns
//! the numbers it reports itself, reading JSON (`E001`, `E002`) and facts
//! files (`E08x`): `lawgen_runtime::diagnostics::Code`.
//!
//! A code is stable once released: tests/ui pins the rendered text of each.
//! A code that is no longer reported keeps its number unused: `E124` (a
//! derogation anchored to a dated edition, which is now evaluated as in
//! force on some dates only).

use lawgen_runtime::diagnostics::CodeId;
use std::fmt;

/// A stable code of the compiler (see the module docs for the numbering).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Code {
    /// `schemaVersion` is not `law.core.ir/0.2`.
    SchemaVersion,
    /// A required field is missing or has the wrong JSON type.
    BadField,
    /// A node `kind` lawgen does not know.
    UnknownNodeKind,
    /// An unknown body item, term or literal kind, or an unknown enumerated value.
    UnknownKind,
    /// A node's `contentHash` does not match its content.
    HashMismatch,
    /// A fragment text's `contentHash` does not match the text.
    TextHashMismatch,
    /// A construct lawgen does not implement (imports, strata, interpretations, …).
    Unsupported,
    /// Two nodes share an id (or two predicates a local name, or two types a name).
    DuplicateId,
    /// A reference names no declared predicate.
    UnknownPredicate,
    /// A reference names no declared type.
    UnknownType,
    /// A reference names no declared constant.
    UnknownConstant,
    /// A priority names no declared rule.
    UnknownRule,
    /// An anchor, edition or work reference resolves to nothing.
    UnknownProvenance,
    /// A reference resolves to a node of the wrong kind.
    WrongNodeKind,
    /// A name holds an invisible character (a bidi control, a zero-width or other format character).
    InvisibleInName,
    /// A name mixes scripts (Unicode TR #39, beyond its highly restrictive level).
    MixedScriptName,
    /// Two names are confusable (the same Unicode TR #39 skeleton, one not ASCII).
    ConfusableNames,
    /// A literal has the wrong number of arguments.
    Arity,
    /// An argument's type differs from the parameter's.
    TypeMismatch,
    /// A comparison between incompatible types, or an order comparison on entities.
    ComparisonType,
    /// A variable used in a rule is not declared in `variables`.
    UndeclaredVariable,
    /// A variable is declared twice in one rule.
    DuplicateVariable,
    /// A `value` term whose JSON value does not fit its type.
    BadValue,
    /// A head variable is not bound by a positive body literal.
    UnboundHeadVariable,
    /// A comparison variable is not bound by a positive body literal.
    UnboundComparisonVariable,
    /// A variable of a `not` item shared with the rule is not bound elsewhere.
    UnboundNegatedVariable,
    /// A rule concludes an empirical or judgment predicate.
    HeadNotInstitutional,
    /// A priority relates rules whose heads are not complementary.
    PriorityNoConflict,
    /// The priority relation has a cycle.
    PriorityCycle,
    /// A closure over a predicate that is not empirical.
    ClosureNotEmpirical,
    /// A closure domain whose parameter types differ from the predicate's.
    ClosureDomainType,
    /// A judgment predicate without an `external_decl`.
    JudgmentWithoutExternal,
    /// An `external_decl` for something that is not a judgment predicate, or a second one.
    BadExternal,
    /// No stratification exists.
    Unstratifiable,
    /// A resource limit (string length, arity, …) is exceeded.
    Limit,
    /// No package on the import search path has the imported name and version.
    ImportNotFound,
    /// The imported package has another namespace than its import entry says.
    ImportNamespace,
    /// The imported package has another `semanticHash` than its import entry pins.
    ImportSemanticHash,
    /// A package imports itself, directly or through others.
    ImportCycle,
    /// Two versions of one package name in one import closure.
    ImportVersionClash,
    /// A node of a layered package whose `package` field or id is not its package's namespace.
    ImportForeignNode,
    /// A derogation in a package that imports nothing.
    DerogationWithoutImports,
    /// A derogation lists a rule of its own package.
    DerogationOwnRule,
    /// A derogation without an anchor.
    DerogationWithoutAnchor,
    /// Two files on the import search path are the imported package.
    ImportAmbiguous,
    /// The text form (`.law`) does not parse.
    TextSyntax,
    /// A lifecycle `extent` that is not a date `YYYY-MM-DD`.
    LifecycleDate,
    /// A lifecycle `status` other than `adopted`, `in_force`, `repealed`.
    LifecycleStatus,
    /// Two editions of one work enter into force on the same day.
    EditionsSameDay,
    /// An undated edition of a work that also has dated editions.
    UndatedEdition,
    /// An input deprecation names a predicate that is not an input.
    DeprecationNotAnInput,
    /// An input deprecation's `validity` or `perType` is not one this version knows, or they do not fit.
    DeprecationValidity,
    /// An input deprecation names no replacement, or one that is no predicate facts can state.
    DeprecationReplacement,
    /// Two input deprecations for one predicate.
    DeprecationDuplicate,
    /// A JSON object of a package names one key twice.
    DuplicateKey,
    /// An imported package's SHA-256 differs from the one its lock file records.
    LockMismatch,
    /// A lock file that is unreadable, malformed, or records another closure.
    LockStale,
    /// Lint: a rule for one case reads a fact that does not name the case.
    CrossCaseLeak,
    /// Lint: a rule's head drops the case every body item hangs off.
    HeadDropsCase,
    /// Lint: a rule whose body can never hold.
    NeverFires,
    /// Lint: a declaration nothing refers to.
    UnusedDeclaration,
    /// Lint: a priority over a strict rule.
    PriorityOverStrict,
    /// Lint: a closure whose domain nothing can establish definitely.
    ClosureDomainEmpty,
    /// Lint: a judgment no rule reads.
    JudgmentNeverRead,
    /// Lint: a derogation that changes nothing (the rule would have concluded nothing anyway).
    DerogationWithoutEffect,
    /// Lint: a dated edition in force on no day.
    EditionNeverInForce,
    /// Lint: a rule anchored to editions of two different works.
    RuleOfTwoWorks,
    /// Lint: a priority whose two rules are never in force on the same day.
    PriorityNeverTogether,
}

impl Code {
    /// Every code of the catalogue, in declaration (and numeric) order.
    pub const ALL: [Code; 68] = [
        Code::SchemaVersion,
        Code::BadField,
        Code::UnknownNodeKind,
        Code::UnknownKind,
        Code::HashMismatch,
        Code::TextHashMismatch,
        Code::Unsupported,
        Code::DuplicateId,
        Code::UnknownPredicate,
        Code::UnknownType,
        Code::UnknownConstant,
        Code::UnknownRule,
        Code::UnknownProvenance,
        Code::WrongNodeKind,
        Code::InvisibleInName,
        Code::MixedScriptName,
        Code::ConfusableNames,
        Code::Arity,
        Code::TypeMismatch,
        Code::ComparisonType,
        Code::UndeclaredVariable,
        Code::DuplicateVariable,
        Code::BadValue,
        Code::UnboundHeadVariable,
        Code::UnboundComparisonVariable,
        Code::UnboundNegatedVariable,
        Code::HeadNotInstitutional,
        Code::PriorityNoConflict,
        Code::PriorityCycle,
        Code::ClosureNotEmpirical,
        Code::ClosureDomainType,
        Code::JudgmentWithoutExternal,
        Code::BadExternal,
        Code::Unstratifiable,
        Code::Limit,
        Code::ImportNotFound,
        Code::ImportNamespace,
        Code::ImportSemanticHash,
        Code::ImportCycle,
        Code::ImportVersionClash,
        Code::ImportForeignNode,
        Code::DerogationWithoutImports,
        Code::DerogationOwnRule,
        Code::DerogationWithoutAnchor,
        Code::ImportAmbiguous,
        Code::TextSyntax,
        Code::LifecycleDate,
        Code::LifecycleStatus,
        Code::EditionsSameDay,
        Code::UndatedEdition,
        Code::DeprecationNotAnInput,
        Code::DeprecationValidity,
        Code::DeprecationReplacement,
        Code::DeprecationDuplicate,
        Code::DuplicateKey,
        Code::LockMismatch,
        Code::LockStale,
        Code::CrossCaseLeak,
        Code::HeadDropsCase,
        Code::NeverFires,
        Code::UnusedDeclaration,
        Code::PriorityOverStrict,
        Code::ClosureDomainEmpty,
        Code::JudgmentNeverRead,
        Code::DerogationWithoutEffect,
        Code::EditionNeverInForce,
        Code::RuleOfTwoWorks,
        Code::PriorityNeverTogether,
    ];

    /// The code as printed, e.g. `E020`.
    pub const fn id(self) -> CodeId {
        use Code::*;
        CodeId::new(match self {
            SchemaVersion => "E003",
            BadField => "E004",
            UnknownNodeKind => "E005",
            UnknownKind => "E006",
            HashMismatch => "E007",
            TextHashMismatch => "E008",
            Unsupported => "E009",
            DuplicateId => "E010",
            UnknownPredicate => "E011",
            UnknownType => "E012",
            UnknownConstant => "E013",
            UnknownRule => "E014",
            UnknownProvenance => "E015",
            WrongNodeKind => "E016",
            InvisibleInName => "E017",
            MixedScriptName => "E018",
            ConfusableNames => "E019",
            Arity => "E020",
            TypeMismatch => "E021",
            ComparisonType => "E022",
            UndeclaredVariable => "E023",
            DuplicateVariable => "E024",
            BadValue => "E025",
            UnboundHeadVariable => "E030",
            UnboundComparisonVariable => "E031",
            UnboundNegatedVariable => "E032",
            HeadNotInstitutional => "E033",
            PriorityNoConflict => "E040",
            PriorityCycle => "E041",
            ClosureNotEmpirical => "E050",
            ClosureDomainType => "E051",
            JudgmentWithoutExternal => "E060",
            BadExternal => "E061",
            Unstratifiable => "E070",
            Limit => "E090",
            ImportNotFound => "E100",
            ImportNamespace => "E101",
            ImportSemanticHash => "E102",
            ImportCycle => "E103",
            ImportVersionClash => "E104",
            ImportForeignNode => "E105",
            DerogationWithoutImports => "E106",
            DerogationOwnRule => "E107",
            DerogationWithoutAnchor => "E108",
            ImportAmbiguous => "E109",
            TextSyntax => "E110",
            LifecycleDate => "E120",
            LifecycleStatus => "E121",
            EditionsSameDay => "E122",
            UndatedEdition => "E123",
            DeprecationNotAnInput => "E130",
            DeprecationValidity => "E131",
            DeprecationReplacement => "E132",
            DeprecationDuplicate => "E133",
            DuplicateKey => "E150",
            LockMismatch => "E151",
            LockStale => "E152",
            CrossCaseLeak => "W001",
            HeadDropsCase => "W002",
            NeverFires => "W003",
            UnusedDeclaration => "W004",
            PriorityOverStrict => "W005",
            ClosureDomainEmpty => "W006",
            JudgmentNeverRead => "W007",
            DerogationWithoutEffect => "W008",
            EditionNeverInForce => "W009",
            RuleOfTwoWorks => "W010",
            PriorityNeverTogether => "W011",
        })
    }

    /// The code as printed, e.g. `E020`.
    pub fn as_str(self) -> &'static str {
        self.id().as_str()
    }

    /// `warning` for the `W0xx` codes of `lawgen lint`, `error` otherwise.
    pub fn severity(self) -> &'static str {
        self.id().severity()
    }

    /// Whether this is a `W0xx` code of `lawgen lint`: a warning about a
    /// package that checks, which never makes loading or a build fail.
    pub fn is_warning(self) -> bool {
        self.id().is_warning()
    }
}

impl From<Code> for CodeId {
    fn from(c: Code) -> CodeId {
        c.id()
    }
}

impl PartialEq<Code> for CodeId {
    fn eq(&self, other: &Code) -> bool {
        *self == other.id()
    }
}

impl fmt::Display for Code {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use lawgen_runtime::diagnostics::Code as RuntimeCode;

    #[test]
    fn no_number_is_given_twice() {
        let mut ids: Vec<CodeId> = Code::ALL.iter().map(|c| c.id()).collect();
        let declared = ids.clone();
        let mut sorted = declared.clone();
        sorted.sort();
        assert_eq!(sorted, declared, "declared in numeric order");
        ids.extend(RuntimeCode::ALL.iter().map(|c| c.id()));
        ids.sort();
        let n = ids.len();
        ids.dedup();
        assert_eq!(
            ids.len(),
            n,
            "the compiler's and the runtime's codes overlap"
        );
    }
}
