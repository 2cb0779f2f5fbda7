//! The words of the review document, in Russian and English: every sentence
//! template in one place, so docs/review-document.md can list them and a
//! reviewer can compare the languages line by line.
//!
//! The Russian templates marked "seed" reproduce the review rendering the
//! chess package was published with (`lawgen/tests/doc/` keeps a copy);
//! the others are lawgen's, written in the same register. Each function
//! takes already rendered pieces (a literal, a list of conditions) and
//! returns the sentence around them; none looks at the package itself.

use super::Lang;
use crate::program::CmpOp;

/// What lawgen calls itself on the lines that name the verbalizer.
pub(crate) fn verbalizer() -> String {
    format!("lawgen {}", env!("CARGO_PKG_VERSION"))
}

impl Lang {
    /// The BCP 47 tag, for `<html lang>` and the verbalizer line.
    pub fn tag(self) -> &'static str {
        match self {
            Lang::Ru => "ru",
            Lang::En => "en",
        }
    }

    // ---- the header -------------------------------------------------------

    /// Names the verbalizer (may differ from the seed).
    pub(crate) fn generated_by(self) -> String {
        let v = verbalizer();
        match self {
            Lang::Ru => format!("Текст порождён из пакета программой {v} (lawgen doc), а не написан рядом с ним: рассинхронизировать изложение с нормами нельзя по построению. Пробелов тотальности нет: каждый узел пакета получил изложение."),
            Lang::En => format!("This text was generated from the package by {v} (lawgen doc), not written beside it: by construction, the wording cannot drift from the rules. There are no totality gaps: every node of the package has its sentence."),
        }
    }

    /// Seed.
    pub(crate) fn title(self, name: &str, version: &str) -> String {
        match self {
            Lang::Ru => format!("Ревью-документ: пакет «{name}» {version}"),
            Lang::En => format!("Review document: package “{name}” {version}"),
        }
    }

    /// Seed, word for word.
    pub(crate) fn disclaimer(self) -> &'static str {
        match self {
            Lang::Ru => "Дисклеймер. Это не официальный текст закона и не юридическое заключение. Документ порождён детерминированной проекцией (ступень 2: используются морфологические формы меток; нормативные позиции duty, liberty, power и immunity, толкования и изменения редакций отображаются явно; имена аргументов отношений называются русским словарём, а переменные обозначаются краткими именами по типу) формализации в контролируемый русский язык и не имеет самостоятельной силы: при расхождении этого текста и семантики программы дефектом является шаблон вербализации, а не программа.",
            Lang::En => "Disclaimer. This is not the official text of the law and not a legal opinion. The document is a deterministic projection of the formalisation into controlled English (argument names of relations are written as the package names them, and variables get short names by type) and has no force of its own: where this text and the semantics of the program disagree, the defect is in the verbalization template, not in the program.",
        }
    }

    /// Names the verbalizer (may differ from the seed).
    pub(crate) fn verbalization_line(self, hash: Option<&str>) -> String {
        let v = verbalizer();
        let tag = self.tag();
        match (self, hash) {
            (Lang::Ru, Some(h)) => {
                format!("Вербализация: {v} · язык {tag} · semantic hash программы {h}")
            }
            (Lang::Ru, None) => {
                format!("Вербализация: {v} · язык {tag} · semantic hash программы не указан")
            }
            (Lang::En, Some(h)) => {
                format!("Verbalization: {v} · language {tag} · semantic hash of the program {h}")
            }
            (Lang::En, None) => {
                format!("Verbalization: {v} · language {tag} · the program states no semantic hash")
            }
        }
    }

    /// Not in the seed: the heading of an imported package's part.
    pub(crate) fn imported_part(self, name: &str, version: &str) -> String {
        match self {
            Lang::Ru => format!("Импортированный пакет «{name}» {version}"),
            Lang::En => format!("Imported package “{name}” {version}"),
        }
    }

    /// Not in the seed: an imported package's namespace and hash.
    pub(crate) fn part_identity(self, namespace: &str, hash: Option<&str>) -> String {
        match (self, hash) {
            (Lang::Ru, Some(h)) => format!("Пространство имён {namespace} · semantic hash {h}"),
            (Lang::Ru, None) => format!("Пространство имён {namespace} · semantic hash не указан"),
            (Lang::En, Some(h)) => format!("Namespace {namespace} · semantic hash {h}"),
            (Lang::En, None) => format!("Namespace {namespace} · no semantic hash stated"),
        }
    }

    // ---- sections ---------------------------------------------------------

    pub(crate) fn section(self, s: super::tree::SectionKind) -> &'static str {
        use super::tree::SectionKind as S;
        match (self, s) {
            (Lang::Ru, S::Imports) => "Импорт",
            (Lang::Ru, S::Sources) => "Источники",
            (Lang::Ru, S::Publications) => "Закреплённые публикации",
            (Lang::Ru, S::Fragments) => "Фрагменты источников",
            (Lang::Ru, S::Concepts) => "Понятия",
            (Lang::Ru, S::Relations) => "Отношения и признаки",
            (Lang::Ru, S::Externals) => "Внешние каналы",
            (Lang::Ru, S::Closures) => "Исчерпывающие перечни",
            (Lang::Ru, S::Rules) => "Правила",
            (Lang::Ru, S::Priorities) => "Приоритеты",
            (Lang::Ru, S::Derogations) => "Отступления",
            (Lang::Ru, S::Deprecations) => "Устаревшие входные данные",
            (Lang::En, S::Imports) => "Imports",
            (Lang::En, S::Sources) => "Sources",
            (Lang::En, S::Publications) => "Pinned publications",
            (Lang::En, S::Fragments) => "Source fragments",
            (Lang::En, S::Concepts) => "Concepts",
            (Lang::En, S::Relations) => "Relations and constants",
            (Lang::En, S::Externals) => "External channels",
            (Lang::En, S::Closures) => "Exhaustive lists",
            (Lang::En, S::Rules) => "Rules",
            (Lang::En, S::Priorities) => "Priorities",
            (Lang::En, S::Derogations) => "Derogations",
            (Lang::En, S::Deprecations) => "Deprecated inputs",
        }
    }

    // ---- identifier lines -------------------------------------------------

    pub(crate) fn identifier(self) -> &'static str {
        match self {
            Lang::Ru => "Идентификатор: ",
            Lang::En => "Identifier: ",
        }
    }

    /// Before the anchors of an identifier line; the plural is not in the seed.
    pub(crate) fn anchors(self, n: usize) -> &'static str {
        match (self, n) {
            (Lang::Ru, 1) => " Анкер: ",
            (Lang::Ru, _) => " Анкеры: ",
            (Lang::En, 1) => " Anchor: ",
            (Lang::En, _) => " Anchors: ",
        }
    }

    // ---- quoting ----------------------------------------------------------

    pub(crate) fn quote(self, s: &str) -> String {
        match self {
            Lang::Ru => format!("«{s}»"),
            Lang::En => format!("“{s}”"),
        }
    }

    // ---- provenance -------------------------------------------------------

    /// Seed.
    pub(crate) fn source_work(self, work: &str) -> String {
        match self {
            Lang::Ru => format!("Источник {}.", self.quote(work)),
            Lang::En => format!("Source {}.", self.quote(work)),
        }
    }

    /// Seed (with a language); without one, not in the seed.
    pub(crate) fn edition(self, edition: &str, work: &str, language: Option<&str>) -> String {
        let (e, w) = (self.quote(edition), self.quote(work));
        match (self, language) {
            (Lang::Ru, Some(l)) => format!("Издание {e} источника {w}, язык {l}."),
            (Lang::Ru, None) => format!("Издание {e} источника {w}."),
            (Lang::En, Some(l)) => format!("Edition {e} of source {w}, language {l}."),
            (Lang::En, None) => format!("Edition {e} of source {w}."),
        }
    }

    /// Seed.
    pub(crate) fn lifecycle(self, status: &str, extent: &str) -> String {
        match self {
            Lang::Ru => format!("Состояние {status}: {extent}."),
            Lang::En => format!("State {status}: {extent}."),
        }
    }

    /// Seed (with a uri); without one, not in the seed.
    pub(crate) fn publication(self, edition: &str, uri: Option<&str>) -> String {
        let e = self.quote(edition);
        match (self, uri) {
            (Lang::Ru, Some(u)) => format!("Закреплённая публикация издания {e}: {u}."),
            (Lang::Ru, None) => {
                format!("Закреплённая публикация издания {e}; адрес не указан.")
            }
            (Lang::En, Some(u)) => format!("Pinned publication of edition {e}: {u}."),
            (Lang::En, None) => format!("Pinned publication of edition {e}; no address stated."),
        }
    }

    /// Seed: the parts of the publication's second line, each optional.
    pub(crate) fn publication_details(
        self,
        hash: Option<&str>,
        media: Option<&str>,
        retrieved: Option<&str>,
    ) -> Option<String> {
        let mut parts = Vec::new();
        match self {
            Lang::Ru => {
                if let Some(h) = hash {
                    parts.push(format!("хэш документа: {h}"));
                }
                if let Some(m) = media {
                    parts.push(format!("тип {m}"));
                }
                if let Some(r) = retrieved {
                    parts.push(format!("получен {r}"));
                }
            }
            Lang::En => {
                if let Some(h) = hash {
                    parts.push(format!("document hash: {h}"));
                }
                if let Some(m) = media {
                    parts.push(format!("type {m}"));
                }
                if let Some(r) = retrieved {
                    parts.push(format!("retrieved {r}"));
                }
            }
        }
        if parts.is_empty() {
            return None;
        }
        let joined = parts.join("; ");
        Some(format!("{}.", capitalize(&joined)))
    }

    /// Seed (with an edition); without one, not in the seed.
    pub(crate) fn fragment(self, locator: &str, edition: Option<&str>) -> String {
        match (self, edition) {
            (Lang::Ru, Some(e)) => format!("Фрагмент {locator} издания {}.", self.quote(e)),
            (Lang::Ru, None) => format!("Фрагмент {locator}."),
            (Lang::En, Some(e)) => format!("Fragment {locator} of edition {}.", self.quote(e)),
            (Lang::En, None) => format!("Fragment {locator}."),
        }
    }

    /// Not in the seed: before each text of a fragment that has several.
    pub(crate) fn fragment_text(self, language: &str, status: Option<&str>) -> String {
        let language = if language.is_empty() { "—" } else { language };
        match (self, status) {
            (Lang::Ru, Some(s)) => format!("Текст на языке {language} ({s}):"),
            (Lang::Ru, None) => format!("Текст на языке {language}:"),
            (Lang::En, Some(s)) => format!("Text in language {language} ({s}):"),
            (Lang::En, None) => format!("Text in language {language}:"),
        }
    }

    /// Seed for an official text; the others are not in the seed.
    pub(crate) fn text_hash(self, hash: &str, status: Option<&str>) -> String {
        match (self, status) {
            (Lang::Ru, Some("official")) => format!("Хэш официального текста: {hash}."),
            (Lang::Ru, Some(s)) => format!("Хэш текста ({s}): {hash}."),
            (Lang::Ru, None) => format!("Хэш текста: {hash}."),
            (Lang::En, Some("official")) => format!("Hash of the official text: {hash}."),
            (Lang::En, Some(s)) => format!("Hash of the text ({s}): {hash}."),
            (Lang::En, None) => format!("Hash of the text: {hash}."),
        }
    }

    /// Not in the seed: a fragment without text.
    pub(crate) fn no_text(self) -> &'static str {
        match self {
            Lang::Ru => "Текст фрагмента в пакет не включён.",
            Lang::En => "The package carries no text of this fragment.",
        }
    }

    // ---- declarations -----------------------------------------------------

    /// Seed.
    pub(crate) fn concept(self, name: &str) -> String {
        match self {
            Lang::Ru => format!("Понятие {}.", self.quote(name)),
            Lang::En => format!("Concept {}.", self.quote(name)),
        }
    }

    /// Seed: relations, and (as the seed writes them) constants.
    pub(crate) fn relation(self, name: &str) -> String {
        match self {
            Lang::Ru => format!("Отношение {}.", self.quote(name)),
            Lang::En => format!("Relation {}.", self.quote(name)),
        }
    }

    /// English only: the seed calls constants relations too; English says
    /// what they are.
    pub(crate) fn constant(self, name: &str, ty: &str) -> String {
        match self {
            Lang::Ru => self.relation(name),
            Lang::En => format!("Constant {}, a {ty}.", self.quote(name)),
        }
    }

    /// Seed.
    pub(crate) fn arguments(self, list: &str) -> String {
        match self {
            Lang::Ru => format!("Аргументы: {list}."),
            Lang::En => format!("Arguments: {list}."),
        }
    }

    /// Seed: the built-in integer type, as an argument type.
    pub(crate) fn integer(self) -> &'static str {
        match self {
            Lang::Ru => "целое число",
            Lang::En => "integer",
        }
    }

    /// An argument without a name in the declaration (not in the seed).
    pub(crate) fn unnamed_argument(self, position: usize) -> String {
        match self {
            Lang::Ru => format!("аргумент {position}"),
            Lang::En => format!("argument {position}"),
        }
    }

    /// The argument-name dictionary: English interrogative words that name
    /// an argument get the Russian word (the seed writes `кто` for `who`);
    /// every other name is kept as the package writes it.
    pub(crate) fn argument_name(self, name: &str) -> String {
        if self == Lang::En {
            return name.to_owned();
        }
        let ru = match name {
            "who" => "кто",
            "whom" => "кого",
            "what" => "что",
            "which" => "который",
            "where" => "где",
            "when" => "когда",
            "why" => "почему",
            "how" => "как",
            _ => name,
        };
        ru.to_owned()
    }

    /// Seed.
    pub(crate) fn external(self, pred: &str, authority: &str) -> String {
        let (p, a) = (self.quote(pred), self.quote(authority));
        match self {
            Lang::Ru => format!("Вопрос {p} решает {a}. До поступления решения ответ не считается ни установленным, ни опровергнутым: вычисление останавливается и запрашивает суждение."),
            Lang::En => format!("The question {p} is decided by {a}. Until the decision arrives, the answer counts as neither established nor refuted: evaluation stops and requests a judgment."),
        }
    }

    /// Seed.
    pub(crate) fn capability(self, capability: &str) -> String {
        match self {
            Lang::Ru => format!("Требуемое полномочие: {}.", self.quote(capability)),
            Lang::En => format!("Required capability: {}.", self.quote(capability)),
        }
    }

    /// Seed (negatives derived, with a date); the others are not in the seed.
    pub(crate) fn closure(self, pred: &str, as_of: Option<&str>, derives: bool) -> String {
        let p = self.quote(pred);
        match (self, as_of, derives) {
            (Lang::Ru, Some(d), true) => format!("Перечень {p} является исчерпывающим по состоянию на {d}: всё, что не перечислено, считается не относящимся к нему."),
            (Lang::Ru, None, true) => format!("Перечень {p} является исчерпывающим: всё, что не перечислено, считается не относящимся к нему."),
            (Lang::Ru, Some(d), false) => format!("Перечень {p} объявлен исчерпывающим по состоянию на {d}, но отрицаний не порождает: то, что не перечислено, остаётся неустановленным."),
            (Lang::Ru, None, false) => format!("Перечень {p} объявлен исчерпывающим, но отрицаний не порождает: то, что не перечислено, остаётся неустановленным."),
            (Lang::En, Some(d), true) => format!("The list {p} is exhaustive as of {d}: whatever is not listed counts as not belonging to it."),
            (Lang::En, None, true) => format!("The list {p} is exhaustive: whatever is not listed counts as not belonging to it."),
            (Lang::En, Some(d), false) => format!("The list {p} is declared exhaustive as of {d} but derives no negatives: whatever is not listed stays not established."),
            (Lang::En, None, false) => format!("The list {p} is declared exhaustive but derives no negatives: whatever is not listed stays not established."),
        }
    }

    // ---- rules ------------------------------------------------------------

    /// Seed: `Для Game G (v0); целого числа Ц (v1).`
    pub(crate) fn for_variables(self, vars: &[String]) -> String {
        match self {
            Lang::Ru => format!("Для {}.", vars.join("; ")),
            Lang::En => format!("For {}.", vars.join("; ")),
        }
    }

    /// Seed: one variable of an entity type (`Game G (v0)`).
    pub(crate) fn entity_variable(self, ty: &str, name: &str, id: &str) -> String {
        format!("{ty} {name} ({id})")
    }

    /// Seed: one integer variable (`целого числа Ц (v2)`).
    pub(crate) fn integer_variable(self, name: &str, id: &str) -> String {
        match self {
            Lang::Ru => format!("целого числа {name} ({id})"),
            Lang::En => format!("integer {name} ({id})"),
        }
    }

    /// The short name of an integer variable (seed: `Ц`).
    pub(crate) fn integer_letter(self) -> &'static str {
        match self {
            Lang::Ru => "Ц",
            Lang::En => "N",
        }
    }

    /// Seed: a literal (`«p» (game: G)`); a literal without arguments is not
    /// in the seed.
    pub(crate) fn literal(self, pred: &str, args: &[String]) -> String {
        if args.is_empty() {
            self.quote(pred)
        } else {
            format!("{} ({})", self.quote(pred), args.join(", "))
        }
    }

    /// Seed: an established item; `negative` is explicit negation.
    pub(crate) fn established(self, lit: &str, negative: bool) -> String {
        match (self, negative) {
            (Lang::Ru, false) => format!("установлено, что {lit}"),
            (Lang::Ru, true) => format!("установлено, что не {lit}"),
            (Lang::En, false) => format!("it is established that {lit}"),
            (Lang::En, true) => format!("it is established that not {lit}"),
        }
    }

    /// Seed (positive); the negative is not in the seed.
    pub(crate) fn supported(self, lit: &str, negative: bool) -> String {
        match (self, negative) {
            (Lang::Ru, false) => {
                format!("имеются (возможно оспариваемые) основания считать, что {lit}")
            }
            (Lang::Ru, true) => {
                format!("имеются (возможно оспариваемые) основания считать, что не {lit}")
            }
            (Lang::En, false) => {
                format!("there are (possibly contested) grounds to hold that {lit}")
            }
            (Lang::En, true) => {
                format!("there are (possibly contested) grounds to hold that not {lit}")
            }
        }
    }

    /// Not in the seed: `not established` (negation as failure).
    pub(crate) fn not_established(self, lit: &str, negative: bool) -> String {
        match (self, negative) {
            (Lang::Ru, false) => format!("не установлено, что {lit}"),
            (Lang::Ru, true) => format!("не установлено, что не {lit}"),
            (Lang::En, false) => format!("it is not established that {lit}"),
            (Lang::En, true) => format!("it is not established that not {lit}"),
        }
    }

    /// Not in the seed: `not supported`.
    pub(crate) fn not_supported(self, lit: &str, negative: bool) -> String {
        match (self, negative) {
            (Lang::Ru, false) => format!("нет даже оспариваемых оснований считать, что {lit}"),
            (Lang::Ru, true) => {
                format!("нет даже оспариваемых оснований считать, что не {lit}")
            }
            (Lang::En, false) => {
                format!("there are no grounds, not even contested ones, to hold that {lit}")
            }
            (Lang::En, true) => {
                format!("there are no grounds, not even contested ones, to hold that not {lit}")
            }
        }
    }

    /// Seed for `ge`; the other operators are not in the seed.
    pub(crate) fn comparison(self, left: &str, op: CmpOp, right: &str) -> String {
        let word = match (self, op) {
            (Lang::Ru, CmpOp::Eq) => "равно",
            (Lang::Ru, CmpOp::Ne) => "не равно",
            (Lang::Ru, CmpOp::Lt) => "менее",
            (Lang::Ru, CmpOp::Le) => "не более",
            (Lang::Ru, CmpOp::Gt) => "более",
            (Lang::Ru, CmpOp::Ge) => "не менее",
            (Lang::En, CmpOp::Eq) => "equals",
            (Lang::En, CmpOp::Ne) => "differs from",
            (Lang::En, CmpOp::Lt) => "is less than",
            (Lang::En, CmpOp::Le) => "is at most",
            (Lang::En, CmpOp::Gt) => "is greater than",
            (Lang::En, CmpOp::Ge) => "is at least",
        };
        format!("{left} {word} {right}")
    }

    /// Joins body items (seed: ` и `).
    pub(crate) fn and(self) -> &'static str {
        match self {
            Lang::Ru => " и ",
            Lang::En => " and ",
        }
    }

    /// Seed: a conclusion; `negative` is explicit negation.
    pub(crate) fn head(self, lit: &str, negative: bool) -> String {
        match (self, negative) {
            (_, false) => lit.to_owned(),
            (Lang::Ru, true) => format!("не имеет места, что {lit}"),
            (Lang::En, true) => format!("it is not the case that {lit}"),
        }
    }

    /// Seed: a strict rule. An empty body is not in the seed.
    pub(crate) fn strict(self, body: Option<&str>, head: &str) -> String {
        match (self, body) {
            (Lang::Ru, Some(b)) => format!("Всегда, если {b}, то {head}."),
            (Lang::Ru, None) => format!("Всегда, без каких-либо условий: {head}."),
            (Lang::En, Some(b)) => format!("Always, if {b}, then {head}."),
            (Lang::En, None) => format!("Always, without any condition: {head}."),
        }
    }

    /// Seed: a defeasible rule. An empty body is not in the seed.
    pub(crate) fn defeasible(self, body: Option<&str>, head: &str) -> String {
        match (self, body) {
            (Lang::Ru, Some(b)) => {
                format!("По общему правилу, если {b}, то {head}, — если не установлено иное.")
            }
            (Lang::Ru, None) => {
                format!("По общему правилу, без каких-либо условий: {head}, — если не установлено иное.")
            }
            (Lang::En, Some(b)) => {
                format!("As a general rule, if {b}, then {head}, unless otherwise established.")
            }
            (Lang::En, None) => format!(
                "As a general rule, without any condition: {head}, unless otherwise established."
            ),
        }
    }

    /// Not in the seed: a defeater. `blocked` is the complement of its head,
    /// already rendered as a conclusion.
    pub(crate) fn defeater(self, body: Option<&str>, blocked: &str) -> String {
        match (self, body) {
            (Lang::Ru, Some(b)) => format!("Препятствие: если {b}, то не считается установленным по общему правилу, что {blocked}, — если только правило, из которого это следует, не имеет приоритета перед этим; само это правило ничего не устанавливает."),
            (Lang::Ru, None) => format!("Препятствие: без каких-либо условий не считается установленным по общему правилу, что {blocked}, — если только правило, из которого это следует, не имеет приоритета перед этим; само это правило ничего не устанавливает."),
            (Lang::En, Some(b)) => format!("Obstacle: if {b}, then it is not taken as established by a general rule that {blocked}, unless the rule it would follow from takes priority over this one; this rule itself establishes nothing."),
            (Lang::En, None) => format!("Obstacle: without any condition, it is not taken as established by a general rule that {blocked}, unless the rule it would follow from takes priority over this one; this rule itself establishes nothing."),
        }
    }

    // ---- priorities, derogations, imports ---------------------------------

    /// A rule named in a priority or derogation: `«Name»`, with its package
    /// when that is not the package of the node that names it (not in the seed).
    pub(crate) fn rule_name(self, name: &str, package: Option<&str>) -> String {
        match (self, package) {
            (_, None) => self.quote(name),
            (Lang::Ru, Some(p)) => format!("{} пакета {}", self.quote(name), self.quote(p)),
            (Lang::En, Some(p)) => format!("{} of package {}", self.quote(name), self.quote(p)),
        }
    }

    /// Seed (both rules of the priority's own package); across packages,
    /// the same sentence with the packages named.
    pub(crate) fn priority(self, higher: &str, lower: &str) -> String {
        match self {
            Lang::Ru => {
                format!("При расхождении приоритет имеет правило {higher} перед правилом {lower}.")
            }
            Lang::En => {
                format!("Where they conflict, rule {higher} takes priority over rule {lower}.")
            }
        }
    }

    /// Not in the seed: a derogation; `rules` are already named. One
    /// anchored to dated `editions` is in force only while one of them is.
    pub(crate) fn derogation(self, rules: &[String], editions: &[String]) -> String {
        let mut s = self.derogation_always(rules);
        if !editions.is_empty() {
            let list = editions.join(", ");
            s.push_str(&match (self, editions.len()) {
                (Lang::Ru, 1) => {
                    format!(" Отступление действует только в период действия редакции {list}.")
                }
                (Lang::Ru, _) => format!(
                    " Отступление действует только в период действия одной из редакций {list}."
                ),
                (Lang::En, 1) => format!(" It is in force only while edition {list} is in force."),
                (Lang::En, _) => {
                    format!(" It is in force only while one of the editions {list} is in force.")
                }
            });
        }
        s
    }

    fn derogation_always(self, rules: &[String]) -> String {
        let list = rules.join(", ");
        match (self, rules.len()) {
            (Lang::Ru, 1) => format!("Отступление: там, где применяется этот пакет (сам или импортированный), не применяется правило {list}, а также приоритеты, в которых оно названо."),
            (Lang::Ru, _) => format!("Отступление: там, где применяется этот пакет (сам или импортированный), не применяются правила {list}, а также приоритеты, в которых они названы."),
            (Lang::En, 1) => format!("Derogation: wherever this package applies (on its own or imported), rule {list} does not apply, nor do the priorities that name it."),
            (Lang::En, _) => format!("Derogation: wherever this package applies (on its own or imported), rules {list} do not apply, nor do the priorities that name them."),
        }
    }

    /// Not in the seed: an input deprecation; `pred`, `per_type` and
    /// `instead` are already named.
    pub(crate) fn input_deprecation(
        self,
        pred: &str,
        per_type: Option<&str>,
        instead: &[String],
    ) -> String {
        let list = instead.join(", ");
        match (self, per_type) {
            (Lang::Ru, None) => format!("Устаревшие входные данные: факты {pred} больше не следует указывать; вместо них указывайте {list}. Программы предупреждают о таких фактах, а с --deny-deprecated отказываются их читать."),
            (Lang::Ru, Some(t)) => format!("Входные данные для одной сущности типа {t} в файле: факты {pred} означают то, что говорит текст, только в файле фактов с одной сущностью типа {t}; в файле с несколькими указывайте {list}. Программы предупреждают о таком файле, а с --deny-deprecated отказываются его читать."),
            (Lang::En, None) => format!("Deprecated input: facts of {pred} should no longer be stated; state {list} instead. Programs warn about such facts, and refuse them under --deny-deprecated."),
            (Lang::En, Some(t)) => format!("Input valid for one {t} per file: facts of {pred} mean what the text says only in a facts file holding one {t}; in a file holding several, state {list}. Programs warn about such a file, and refuse it under --deny-deprecated."),
        }
    }

    /// Not in the seed: an `imports` entry.
    pub(crate) fn import(self, name: &str, version: &str, namespace: &str) -> String {
        let n = self.quote(name);
        match self {
            Lang::Ru => format!("Пакет строится на пакете {n} {version} из пространства имён {namespace}: нормы того пакета действуют и здесь, если этот пакет не устанавливает иное."),
            Lang::En => format!("The package builds on package {n} {version} of namespace {namespace}: that package's rules apply here too, except where this package provides otherwise."),
        }
    }

    /// Not in the seed: the hash an import pins.
    pub(crate) fn pinned_hash(self, hash: &str) -> String {
        match self {
            Lang::Ru => format!("Закреплённый semantic hash: {hash}."),
            Lang::En => format!("Pinned semantic hash: {hash}."),
        }
    }

    // ---- the page's own words (HTML only) ---------------------------------

    pub(crate) fn ui(self, w: Ui) -> &'static str {
        match (self, w) {
            (Lang::Ru, Ui::Contents) => "Содержание",
            (Lang::En, Ui::Contents) => "Contents",
            (Lang::Ru, Ui::Packages) => "Пакеты и их semantic hash",
            (Lang::En, Ui::Packages) => "Packages and their semantic hashes",
            (Lang::Ru, Ui::Package) => "Пакет",
            (Lang::En, Ui::Package) => "Package",
            (Lang::Ru, Ui::Version) => "Версия",
            (Lang::En, Ui::Version) => "Version",
            (Lang::Ru, Ui::Role) => "Роль",
            (Lang::En, Ui::Role) => "Role",
            (Lang::Ru, Ui::Root) => "проверяемый пакет",
            (Lang::En, Ui::Root) => "the package under review",
            (Lang::Ru, Ui::Imported) => "импортирован",
            (Lang::En, Ui::Imported) => "imported",
            (Lang::Ru, Ui::Overrides) => "Кто кого превосходит",
            (Lang::En, Ui::Overrides) => "Who overrides whom",
            (Lang::Ru, Ui::OverridesIntro) => "Каждая строка — норма, которая берёт верх, как она это делает (приоритет, препятствие или отступление) и над чем; слой — пакет, из которого происходит норма.",
            (Lang::En, Ui::OverridesIntro) => "Each row is a norm that prevails, how it does so (a priority, an obstacle or a derogation) and over what; the layer is the package the norm comes from.",
            (Lang::Ru, Ui::Prevails) => "Берёт верх",
            (Lang::En, Ui::Prevails) => "Prevails",
            (Lang::Ru, Ui::How) => "Как",
            (Lang::En, Ui::How) => "How",
            (Lang::Ru, Ui::Over) => "Над чем",
            (Lang::En, Ui::Over) => "Over",
            (Lang::Ru, Ui::ByPriority) => "приоритет",
            (Lang::En, Ui::ByPriority) => "priority",
            (Lang::Ru, Ui::ByDefeater) => "препятствие",
            (Lang::En, Ui::ByDefeater) => "obstacle",
            (Lang::Ru, Ui::ByDerogation) => "отступление",
            (Lang::En, Ui::ByDerogation) => "derogation",
            (Lang::Ru, Ui::NoOverrides) => "В пакете и его импорте нет приоритетов, препятствий и отступлений.",
            (Lang::En, Ui::NoOverrides) => "The package and its imports have no priorities, obstacles or derogations.",
            (Lang::Ru, Ui::AnchoredRules) => "Правила, закреплённые за этим фрагментом",
            (Lang::En, Ui::AnchoredRules) => "Rules anchored to this fragment",
            (Lang::Ru, Ui::NoAnchoredRules) => "За этим фрагментом не закреплено ни одно правило.",
            (Lang::En, Ui::NoAnchoredRules) => "No rule is anchored to this fragment.",
            (Lang::Ru, Ui::Label) => "Метка",
            (Lang::En, Ui::Label) => "Label",
            (Lang::Ru, Ui::PrevailsOver) => "Берёт верх над",
            (Lang::En, Ui::PrevailsOver) => "Prevails over",
            (Lang::Ru, Ui::YieldsTo) => "Уступает",
            (Lang::En, Ui::YieldsTo) => "Yields to",
            (Lang::Ru, Ui::BlockedBy) => "Препятствия",
            (Lang::En, Ui::BlockedBy) => "Obstacles to it",
            (Lang::Ru, Ui::Blocks) => "Препятствует правилам",
            (Lang::En, Ui::Blocks) => "Obstructs rules",
            (Lang::Ru, Ui::SetAsideBy) => "Не применяется по отступлению",
            (Lang::En, Ui::SetAsideBy) => "Set aside by derogation",
            (Lang::Ru, Ui::Scenarios) => "Сценарии",
            (Lang::En, Ui::Scenarios) => "Scenarios",
            (Lang::Ru, Ui::NoScenario) => "Ни в одном сценарии правило не было применимо.",
            (Lang::En, Ui::NoScenario) => "In no scenario was the rule applicable.",
            (Lang::Ru, Ui::Strict) => "строгое правило",
            (Lang::En, Ui::Strict) => "strict rule",
            (Lang::Ru, Ui::Defeasible) => "опровержимое правило (действует по общему правилу)",
            (Lang::En, Ui::Defeasible) => "defeasible rule",
            (Lang::Ru, Ui::Defeater) => "препятствие (defeater)",
            (Lang::En, Ui::Defeater) => "defeater",
            (Lang::Ru, Ui::Empirical) => "входные факты",
            (Lang::En, Ui::Empirical) => "input facts",
            (Lang::Ru, Ui::Institutional) => "выводится правилами",
            (Lang::En, Ui::Institutional) => "derived by rules",
            (Lang::Ru, Ui::Judgment) => "суждение уполномоченного лица",
            (Lang::En, Ui::Judgment) => "judgment of an authority",
            (Lang::Ru, Ui::Layer) => "слой",
            (Lang::En, Ui::Layer) => "layer",
            (Lang::Ru, Ui::Scenario) => "Сценарий",
            (Lang::En, Ui::Scenario) => "Scenario",
            (Lang::Ru, Ui::Outcome) => "Что произошло с правилом",
            (Lang::En, Ui::Outcome) => "What happened to the rule",
            (Lang::Ru, Ui::Domain) => "Область перечня",
            (Lang::En, Ui::Domain) => "Domain of the list",
            (Lang::Ru, Ui::Snapshot) => "Снимок",
            (Lang::En, Ui::Snapshot) => "Snapshot",
            (Lang::Ru, Ui::Reason) => "Основание",
            (Lang::En, Ui::Reason) => "Reason",
            (Lang::Ru, Ui::Features) => "Возможности пакета",
            (Lang::En, Ui::Features) => "Package features",
            (Lang::Ru, Ui::Work) => "Сведения об источнике",
            (Lang::En, Ui::Work) => "About the source",
            (Lang::Ru, Ui::Skip) => "К содержанию документа",
            (Lang::En, Ui::Skip) => "Skip to the document",
        }
    }
}

/// The page's own labels (headings, table columns, badges).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Ui {
    Contents,
    Packages,
    Package,
    Version,
    Role,
    Root,
    Imported,
    Overrides,
    OverridesIntro,
    Prevails,
    How,
    Over,
    ByPriority,
    ByDefeater,
    ByDerogation,
    NoOverrides,
    AnchoredRules,
    NoAnchoredRules,
    Label,
    PrevailsOver,
    YieldsTo,
    BlockedBy,
    Blocks,
    SetAsideBy,
    Scenarios,
    NoScenario,
    Strict,
    Defeasible,
    Defeater,
    Empirical,
    Institutional,
    Judgment,
    Layer,
    Scenario,
    Outcome,
    Domain,
    Snapshot,
    Reason,
    Features,
    Work,
    Skip,
}

fn capitalize(s: &str) -> String {
    let mut c = s.chars();
    match c.next() {
        Some(f) => f.to_uppercase().chain(c).collect(),
        None => String::new(),
    }
}
