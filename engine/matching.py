"""How two claims meet, compiled from an :class:`engine.attributes.AttributeRegistry`.

The reducer asks three questions of a new claim and each active claim it might touch: are they about
the same attribute (predicate synonyms, prefix families such as ``favorite_*``, object classes such
as an ``is_a`` of an occupation being a role), does that attribute hold one value or many, and do
their objects name the same thing. Objects are compared on a *core* (:meth:`Matcher.core`): the
object's words with leading articles, possessives and quantities, frequency and time qualifiers
("three times", "every day", "last week") and trailing category nouns ("Thai food") removed, plurals
folded and value synonyms mapped. Two cores meet when one ends the other (the head noun: "dark
chocolate" and "chocolate", "Peru three times" and "Peru"); a value named in an update meets any
object that contains it ("swapped the Galaxy for a Pixel" names "Samsung Galaxy S10"). Across
attributes, claims meet by the registry's entailments and general values (:meth:`Matcher.facts`,
:meth:`Matcher.conflict`: "I'm vegetarian" denies "I eat chicken", "no pets" denies "my dog"). The
stored object and quote never change: the core exists only for the comparison.

Pure and deterministic: the same registry gives the same answers, and every answer is cached per
matcher (one per registry, held by the reducer).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Final

from engine.attributes import AttributeRegistry, AttributeSpec
from engine.normalize import normalize_predicate, normalize_text, object_tokens, subject_root

_TIME: Final = re.compile(r"^(?:[01]?\d|2[0-3])(?:[:.][0-5]\d)?\s*(?:am|pm)?$|^(?:noon|midday|midnight)$", re.I)
_NUMBER: Final = re.compile(r"^\d+(?:\.\d+)?$")
_WEEKDAY: Final = re.compile(
    r"^(?:next\s+|this\s+|on\s+)?(?:mon|tues|wednes|thurs|fri|satur|sun)day(?:\s+(?:at|@)\s+.+)?$", re.I
)
_DATE: Final = re.compile(
    r"^(?:the\s+)?(?:\d{1,2}(?:st|nd|rd|th)?(?:\s+of)?\s+)?(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*"
    r"(?:\s+\d{1,2}(?:st|nd|rd|th)?)?(?:,?\s+\d{4})?$|^(?:the\s+)?\d{1,2}(?:st|nd|rd|th)$|^\d{4}-\d{2}-\d{2}$",
    re.I,
)
_PRONOUNS: Final = frozenset({
    "i", "me", "you", "he", "him", "she", "her", "we", "us", "they", "them", "it", "my", "your", "our", "their",
})
_NAME: Final = re.compile(r"^(?-i:[A-Z][\w'’.&+-]*)(?:\s+(?-i:[A-Z0-9][\w'’.&+-]*)){0,3}$")


@dataclass(frozen=True, slots=True)
class Attribute:
    """What a claim is about, as the registry names it."""

    name: str
    single: bool
    #: Another attribute this one also states of the same subject and object (a favourite is liked).
    implies: str | None = None
    #: For a prefix family (``favorite_musical``): the words of what it ranks ("musical").
    category: tuple[str, ...] = ()

    def related(self, other: Attribute) -> bool:
        """The same attribute, or one implies the other (``favorite_fruit`` and ``likes``)."""
        if self.name == other.name:
            return True
        if self.implies is not None and self.implies in (other.name, other.implies):
            return True
        return other.implies is not None and other.implies == self.name


@dataclass(frozen=True, slots=True)
class Fact:
    """What a claim says for comparing across entailments: the attribute names it may be read as, its
    object's core (empty for an activity) and its polarity."""

    attributes: frozenset[str]
    core: tuple[str, ...]
    positive: bool
    #: Whether the fact is entailed (not the claim's own words).
    entailed: bool = False


@dataclass(frozen=True, slots=True)
class _Entailment:
    premise: frozenset[str]
    values: frozenset[tuple[str, ...]]
    covered_by: tuple[tuple[str, ...], ...]
    conclusion: frozenset[str]
    core: tuple[str, ...] | None
    positive: bool


@dataclass(frozen=True, slots=True)
class _Class:
    attribute: str
    pattern: re.Pattern[str] | None
    values: frozenset[str]
    heads: frozenset[str]
    not_with: frozenset[str]


class Matcher:
    """A registry compiled for the reducer's questions; build one per registry and keep it."""

    def __init__(self, registry: AttributeRegistry) -> None:
        self.registry = registry
        self.enabled = registry.enabled
        self._specs: dict[str, tuple[str, AttributeSpec]] = {}
        for name, spec in registry.attributes.items():
            canonical = normalize_predicate(name)
            for predicate in (name, *spec.synonyms):
                self._specs.setdefault(normalize_predicate(predicate), (canonical, spec))
        self._prefixes = sorted(
            ((normalize_predicate(p), s) for p, s in registry.prefixes.items()), key=lambda item: -len(item[0])
        )
        self._classes: dict[str, list[_Class]] = {}
        for oc in registry.object_classes:
            compiled = _Class(
                normalize_predicate(oc.attribute),
                re.compile(oc.pattern, re.I) if oc.pattern else None,
                frozenset(normalize_text(v) for v in oc.values),
                frozenset(oc.heads),
                frozenset(oc.not_with),
            )
            for predicate in oc.predicates:
                self._classes.setdefault(normalize_predicate(predicate), []).append(compiled)
        qualifiers = registry.matching.qualifiers
        self._qualifiers = re.compile("|".join(f"(?:{q})" for q in qualifiers), re.I) if qualifiers else None
        self._determiners = frozenset(registry.matching.determiners)
        self._categories = frozenset(w for c in registry.matching.category_nouns for w in object_tokens(c))
        self._min_core = registry.matching.minimum_core_words
        self._synonyms: dict[tuple[str, ...], tuple[str, ...]] = {}
        self._groups: dict[tuple[str, ...], frozenset[str]] = {}
        for group in registry.value_synonyms:
            phrases = [object_tokens(v) for v in group if object_tokens(v)]
            if not phrases:
                continue
            words = frozenset(w for p in phrases for w in p)
            for phrase in phrases:
                self._synonyms.setdefault(phrase, phrases[0])
                self._groups.setdefault(phrases[0], words)
        self._longest_synonym = max((len(p) for p in self._synonyms), default=0)
        #: first word -> (a synonym phrase starting with it, the last words of its group's phrases)
        self._group_heads: dict[str, list[tuple[tuple[str, ...], frozenset[str]]]] = {}
        for group in registry.value_synonyms:
            phrases = [object_tokens(v) for v in group if object_tokens(v)]
            for phrase in phrases:
                self._group_heads.setdefault(phrase[0], []).append((phrase, frozenset(p[-1] for p in phrases)))
        self._heads_cache: dict[tuple[str, ...], tuple[str, ...]] = {}
        self._aliases: dict[str, dict[str, tuple[str, ...]]] = {}
        for scope, groups in registry.subject_aliases.items():
            table: dict[str, tuple[str, ...]] = {}
            for group in groups:
                members = tuple(dict.fromkeys(normalize_text(s) for s in group))
                for member in members:
                    table.setdefault(member, members)
            self._aliases[scope.lower()] = table
        self._inverse = {normalize_predicate(k): normalize_predicate(v) for k, v in registry.inverse.items()}
        self._shared = {k.lower(): normalize_text(v) for k, v in registry.shared_things.items()}
        self._people = frozenset(normalize_text(p) for p in registry.person_nouns)
        self._occupations = frozenset(h for oc in registry.object_classes for h in oc.heads)
        self._multi_heads = frozenset(registry.attribute_form.multi_valued_heads)
        self._attr_cache: dict[tuple[str, str, bool], Attribute] = {}
        self._core_cache: dict[str, tuple[str, ...]] = {}
        self._could_cache: dict[tuple[str, str], bool] = {}
        self._kinds: dict[tuple[str, ...], str] = {}
        for kind_name, values in registry.value_kinds.items():
            for value in values:
                value_words = self.kind(value)
                if value_words:
                    self._kinds.setdefault(value_words, kind_name)
        self._kind_heads: dict[str, tuple[str, ...]] = {}
        for phrase, kind_name in self._kinds.items():
            heads = self._kind_heads.setdefault(kind_name, ())
            if phrase[-1] not in heads:
                self._kind_heads[kind_name] = (*heads, phrase[-1])
        self._longest_kind = max((len(p) for p in self._kinds), default=0)
        self._covers: dict[tuple[str, ...], frozenset[tuple[str, ...]]] = {}
        self._compile_hyponyms(registry.hyponyms)
        self._entailments = tuple(
            _Entailment(
                self._names(e.premise.attributes),
                frozenset(self.core(v) for v in e.premise.values),
                tuple(self.core(v) for v in e.premise.covered_by),
                self._names(e.conclusion.attributes),
                self.core(e.conclusion.object) if e.conclusion.object else None,
                e.conclusion.polarity == "positive",
            )
            for e in registry.entailments
        )
        self._facts_cache: dict[tuple[str, str, bool, tuple[str, ...], bool], tuple[Fact, ...]] = {}

    def _names(self, predicates: tuple[str, ...]) -> frozenset[str]:
        """A list of predicates as every name a claim of theirs may carry (the predicate and its attribute)."""
        out: set[str] = set()
        for predicate in predicates:
            p = normalize_predicate(predicate)
            out.update((p, self._attribute(p, "", False).name))
        return frozenset(out)

    def _compile_hyponyms(self, hyponyms: dict[str, tuple[str, ...]]) -> None:
        direct = {self.core(g): {self.core(v) for v in vs if self.core(v)}
                  for g, vs in hyponyms.items() if self.core(g)}
        for general in direct:
            seen: set[tuple[str, ...]] = set()
            todo = list(direct[general])
            while todo:
                value = todo.pop()
                if value in seen or value == general:
                    continue
                seen.add(value)
                todo.extend(direct.get(value, ()))
            self._covers[general] = frozenset(seen)
        #: covered value -> the general values covering it, to find an old "I don't eat meat" from "I eat chicken"
        self._covered_by: dict[tuple[str, ...], tuple[tuple[str, ...], ...]] = {}
        for general, values in sorted(self._covers.items()):
            for value in values:
                self._covered_by[value] = (*self._covered_by.get(value, ()), general)

    # -- attributes ---------------------------------------------------------------------
    def inverse_of(self, predicate: str) -> str | None:
        """The direct predicate an inverse one mirrors ("employs" -> "works_at"), or None."""
        return self._inverse.get(normalize_predicate(predicate))

    def attribute(self, predicate: str, obj: str | None, attribute_form: bool = False) -> Attribute:
        """The attribute a claim of ``predicate`` with ``obj`` is about.

        ``attribute_form`` marks a claim read from "my <attribute> is <value>": such an attribute names
        one value (unless its head noun is listed as multi-valued) and is known by its head noun.
        """
        p = normalize_predicate(predicate)
        p = self._inverse.get(p, p)
        key = (p, normalize_text(obj) if p in self._classes else "", attribute_form)
        hit = self._attr_cache.get(key)
        if hit is None:
            hit = self._attribute(p, key[1], attribute_form)
            self._attr_cache[key] = hit
        return hit

    def _attribute(self, p: str, obj_n: str, attribute_form: bool) -> Attribute:
        for oc in self._classes.get(p, ()):
            if obj_n and self._in_class(oc, obj_n):
                return self._named(oc.attribute)
        known = self._specs.get(p)
        if known is not None:
            return _make(known[0], known[1])
        for prefix, spec in self._prefixes:
            if p.startswith(prefix) and len(p) > len(prefix):
                rest = p[len(prefix) :]
                family = normalize_predicate(spec.canonical) if spec.canonical else prefix
                return Attribute(family + rest, spec.cardinality == "single", spec.implies,
                                 object_tokens(rest.replace("_", " ")))
        if attribute_form:
            head = p.rsplit("_", 1)[-1]
            known = self._specs.get(head)
            if known is not None:
                return _make(known[0], known[1])
            return Attribute(head, head not in self._multi_heads)
        return Attribute(_verb_stem(p), False)

    def _named(self, name: str) -> Attribute:
        known = self._specs.get(name)
        return _make(known[0], known[1]) if known is not None else Attribute(name, False)

    def _in_class(self, oc: _Class, obj_n: str) -> bool:
        core = self.core(obj_n)
        if oc.not_with and any(w in oc.not_with for w in object_tokens(obj_n)):
            return False
        if oc.pattern is not None and oc.pattern.search(obj_n):
            return True
        if oc.values and (" ".join(core) in oc.values or obj_n in oc.values):
            return True
        return bool(oc.heads) and bool(core) and core[-1] in oc.heads

    def could_be(self, predicate: str, name: str) -> bool:
        """Whether some claim of ``predicate`` may be about attribute ``name`` (before its object is known)."""
        p = normalize_predicate(predicate)
        key = (p, name)
        hit = self._could_cache.get(key)
        if hit is None:
            p2 = self._inverse.get(p, p)
            hit = (
                self._attribute(p2, "", False).name == name
                or self._attribute(p2, "", True).name == name
                or any(oc.attribute == name for oc in self._classes.get(p2, ()))
            )
            self._could_cache[key] = hit
        return hit

    def implied_by(self, predicate: str, name: str) -> bool:
        """Whether claims of ``predicate`` also state attribute ``name`` (``favorite_musical`` states a like)."""
        p = normalize_predicate(predicate)
        key = (p, "\0" + name)
        hit = self._could_cache.get(key)
        if hit is None:
            hit = self._attribute(self._inverse.get(p, p), "", False).implies == name
            self._could_cache[key] = hit
        return hit

    # -- objects ------------------------------------------------------------------------
    def core(self, obj: str | None) -> tuple[str, ...]:
        """The words an object is compared on (see the module docstring); never empty for a non-empty object."""
        text = normalize_text(obj)
        if not text:
            return ()
        hit = self._core_cache.get(text)
        if hit is not None:
            return hit
        stripped = self._qualifiers.sub(" ", text) if self._qualifiers is not None else text
        words = list(object_tokens(stripped))
        while len(words) > self._min_core and (words[0] in self._determiners or _NUMBER.match(words[0])):
            words.pop(0)
        while len(words) > self._min_core and words[-1] in self._categories:
            words.pop()
        if not words:
            words = list(object_tokens(text))
        core = self._map_synonyms(tuple(words))
        if len(self._core_cache) > 65536:
            self._core_cache.clear()
        self._core_cache[text] = core
        return core

    def _map_synonyms(self, words: tuple[str, ...]) -> tuple[str, ...]:
        if not self._synonyms:
            return words
        out: list[str] = []
        i = 0
        while i < len(words):
            for size in range(min(self._longest_synonym, len(words) - i), 0, -1):
                canonical = self._synonyms.get(words[i : i + size])
                if canonical is not None:
                    out.extend(canonical)
                    i += size
                    break
            else:
                out.append(words[i])
                i += 1
        return tuple(out)

    def activity(self, obj: str | None) -> bool:
        """Whether a claim names an activity rather than a thing: no object, or only qualifiers ("every morning")."""
        text = normalize_text(obj)
        if not text:
            return True
        stripped = self._qualifiers.sub(" ", text) if self._qualifiers is not None else text
        return not any(w not in self._determiners and not _NUMBER.match(w) for w in object_tokens(stripped))

    def head_words(self, obj: str | None) -> tuple[str, ...]:
        """Words to find the claims whose object may meet ``obj`` by (the store indexes active claims by their
        objects' words). Cores meet on a shared last word, so the head noun (and its synonyms') is enough: a
        subject with thousands of "likes" is asked for the few that share it, never scanned."""
        core = self.core(obj)
        if not core:
            return ()
        hit = self._heads_cache.get(core)
        if hit is not None:
            return hit
        words = dict.fromkeys((core[-1],))
        for word in core:
            for phrase, heads in self._group_heads.get(word, ()):
                if _run_in(phrase, core):
                    words.update(dict.fromkeys(heads))
        found = tuple(words)
        if len(self._heads_cache) > 65536:
            self._heads_cache.clear()
        self._heads_cache[core] = found
        return found

    def content_words(self, core: tuple[str, ...]) -> tuple[str, ...]:
        """The words of ``core`` but its determiners (an update's named value is looked up by all of them)."""
        return tuple(w for w in core if w not in self._determiners)

    def same_value(self, a: tuple[str, ...], b: tuple[str, ...]) -> bool:
        """Whether two cores name the same thing: equal, or one is the head of the other."""
        if not a or not b:
            return False
        if a == b:
            return True
        short, long = (a, b) if len(a) < len(b) else (b, a)
        return long[-len(short) :] == short

    def kind(self, obj: str | None) -> tuple[str, ...]:
        """An object's words without leading determiners and qualifiers, its category noun kept ("Pro plan")."""
        text = normalize_text(obj)
        stripped = self._qualifiers.sub(" ", text) if self._qualifiers is not None else text
        words = list(object_tokens(stripped))
        while words and (words[0] in self._determiners or _NUMBER.match(words[0])):
            words.pop(0)
        return tuple(words)

    def same_kind(self, a: str | None, b: str | None) -> bool:
        """Whether two objects that do not meet are two of one kind: the same head noun, each qualified
        ("the Pro plan" and "the free plan", "Python SDK" and "Go SDK"): an update from one to the other is a
        change, where two unqualified values of a multi-valued attribute ("Python", "Go") coexist."""
        ka, kb = self.kind(a), self.kind(b)
        return (len(ka) > 1 and len(kb) > 1 and ka[-1] == kb[-1] and ka != kb
                and not self.same_value(self.core(a), self.core(b)))

    def kind_of(self, obj: str | None) -> str | None:
        """The registry's kind of thing an object names ("a Pixel 8" is a phone): the longest leading run of its
        words (:meth:`kind`, category nouns kept: "Apple Music" is not an apple) that is a value of the kind."""
        words = self.kind(obj)
        for n in range(min(len(words), self._longest_kind), 0, -1):
            hit = self._kinds.get(words[:n])
            if hit is not None:
                return hit
        return None

    def kind_words(self, obj: str | None) -> tuple[str, ...]:
        """The words to find the claims naming another value of ``obj``'s kind by (each value's last word)."""
        kind_name = self.kind_of(obj)
        return self._kind_heads.get(kind_name, ()) if kind_name is not None else ()

    def kindred(self, a: str | None, b: str | None) -> bool:
        """Whether two objects that do not meet name two values of one kind ("Chrome" and "Firefox")."""
        kind_a = self.kind_of(a)
        return kind_a is not None and kind_a == self.kind_of(b) and not self.same_value(self.core(a), self.core(b))

    def names(self, named: tuple[str, ...], core: tuple[str, ...]) -> bool:
        """Whether a value named by an update ("swapped the Galaxy for ...") is the object ``core``."""
        if not named or not core:
            return False
        return _run_in(named, core) or _run_in(core, named)

    @staticmethod
    def names_count(named: str | None, obj: str | None) -> bool:
        """Whether a number an update names ("two kids, not three"; "58k, not 85") is a number of ``obj``: cores
        leave counts out (two kids and three kids are one thing), so a correction of a count is read on the
        words: a numeral or a number word meets the same number, alone or with a unit ("85k", "8am")."""
        want = _count(named)
        if want is None:
            return False
        return any(_count(w) == want for w in object_tokens(obj))

    @staticmethod
    def count_words(named: str | None) -> tuple[str, ...]:
        """The words to find the claims holding the number an update names by (the store indexes whole words)."""
        n = _count(named)
        if n is None:
            return ()
        words = [n, *(n + unit for unit in _UNITS)]
        words.extend(w for w, v in _NUMBER_WORDS.items() if v == n)
        return tuple(words)

    def category_meets(self, attribute: Attribute, core: tuple[str, ...]) -> bool:
        """Whether ``core`` names what a ranked family is about ("musicals" for ``favorite_musical``)."""
        return bool(attribute.category) and self.same_value(self.core(" ".join(attribute.category)), core)

    # -- entailments ---------------------------------------------------------------------
    def covers(self, general: tuple[str, ...], specific: tuple[str, ...]) -> bool:
        """Whether ``general`` names ``specific`` or a class of things it is in ("meat" covers "chicken
        thighs"); never the other way round."""
        if self.same_value(general, specific):
            return True
        tail = self._known_tail(specific)
        return tail is not None and (tail == general or tail in self._covers.get(general, ()))

    def _known_tail(self, core: tuple[str, ...]) -> tuple[str, ...] | None:
        """The longest run of words ending ``core`` that the hyponym table knows: "peanut butter" is peanut
        butter (covered by "nuts"), not butter (covered by "dairy")."""
        for n in range(len(core), 0, -1):
            tail = core[-n:]
            if tail in self._covered_by or tail in self._covers:
                return tail
        return None

    def facts(self, predicate: str, attribute: Attribute, obj: str | None, positive: bool) -> tuple[Fact, ...]:
        """What a claim says, as facts to compare across entailments: its own words, then what the registry's
        entailments conclude from it ("I'm vegetarian": not eating meat). Only a positive claim entails."""
        core = self.core(obj)
        key = (normalize_predicate(predicate), attribute.name, positive, core, bool(obj))
        hit = self._facts_cache.get(key)
        if hit is not None:
            return hit
        own = Fact(frozenset(key[:2]), core, positive)
        out = [own]
        if positive and core:
            for rule in self._entailments:
                if (own.attributes & rule.premise and (not rule.values or core in rule.values)
                        and (not rule.covered_by or any(self.covers(g, core) for g in rule.covered_by))):
                    concluded = rule.core if rule.core is not None else core
                    out.append(Fact(rule.conclusion, concluded, rule.positive, entailed=True))
        found = tuple(out)
        if len(self._facts_cache) > 65536:
            self._facts_cache.clear()
        self._facts_cache[key] = found
        return found

    def concludes(self, predicate: str, name: str) -> bool:
        """Whether claims of ``predicate`` may entail a claim of attribute ``name`` ("has" a beer: drinks it)."""
        p = normalize_predicate(predicate)
        names = {p, self._attribute(p, "", False).name}
        return any(names & rule.premise and name in rule.conclusion for rule in self._entailments)

    def conflict(self, new: tuple[Fact, ...], old: tuple[Fact, ...]) -> bool:
        """Whether two claims deny each other through an entailment or a general value: facts of one attribute
        and opposite polarity where the negative one covers the positive one ("I don't eat meat" and "I eat
        chicken"; "I'm vegetarian" and "I eat chicken"). The same value without an entailment is the plain
        polarity rule's, not this one's."""
        for a in new:
            for b in old:
                if a.positive == b.positive or not a.attributes & b.attributes:
                    continue
                negative, positive = (b, a) if a.positive else (a, b)
                if not negative.core and positive.entailed and positive.core:
                    return True  # "I stopped drinking" denies what having a beer entails
                if not a.core or not b.core:
                    continue
                if self.covers(negative.core, positive.core) and (
                    a.entailed or b.entailed or not self.same_value(negative.core, positive.core)
                ):
                    return True
        return False

    def general_words(self, core: tuple[str, ...]) -> tuple[str, ...]:
        """The last words of the general values covering ``core`` ("hamster": pets), to find their denials by."""
        tail = self._known_tail(core)
        return tuple(dict.fromkeys(g[-1] for g in self._covered_by.get(tail, ()))) if tail is not None else ()

    def fact_words(self, facts: tuple[Fact, ...]) -> tuple[str, ...]:
        """The words to find the claims a claim's facts may deny by: an entailed value and what it covers, the
        general values covering a positive value, and the premise values of entailments concluding them."""
        words: dict[str, None] = {}
        for fact in facts:
            if not fact.core:
                continue
            if fact.entailed:
                words[fact.core[-1]] = None
            if fact.positive:
                words.update(dict.fromkeys(self.general_words(fact.core)))
            else:
                words.update(dict.fromkeys(v[-1] for v in self._covers.get(fact.core, ())))
            for rule in self._entailments:
                if rule.positive == fact.positive or not fact.attributes & rule.conclusion:
                    continue
                general, specific = (rule.core, fact.core) if fact.positive else (fact.core, rule.core)
                if general is None or specific is None or self.covers(general, specific):
                    words.update(dict.fromkeys(v[-1] for v in rule.values if v))
        return tuple(words)

    # -- subjects -----------------------------------------------------------------------
    def subjects(self, subject_n: str, scope: str) -> tuple[str, ...]:
        """The subjects that are one with ``subject_n`` in ``scope`` (itself first)."""
        key = scope.lower()
        group = self._aliases.get(key, {}).get(subject_n) or (subject_n,)
        out = dict.fromkeys((subject_n, *group))
        owner = self._shared.get(key)
        if owner is not None:
            prefix = f"{owner}'s "
            aliases = self._aliases.get(key, {})
            for s in list(out):
                if s.startswith(prefix):
                    out[s[len(prefix) :]] = None
                elif "'s " not in s and s != owner and s not in aliases:
                    out[prefix + s] = None
        return tuple(out)

    def owned(self, subject_n: str, roots: tuple[str, ...]) -> bool:
        """Whether ``subject_n`` is a thing of one of ``roots`` ("user's ci"), not a person ("user's wife")."""
        root = subject_root(subject_n)
        thing = subject_n[len(root) + 3 :]
        if root == subject_n or root not in roots:
            return False
        words = thing.split()
        if not 0 < len(words) <= 3 or any(w in _PRONOUNS for w in words):
            return False  # "user's dentist told me to" is a clause, not a thing
        head = words[-1]
        return thing not in self._people and head not in self._people and head not in self._occupations

    def possessed(self, subject_n: str) -> tuple[str, ...]:
        """The core of what a possessive subject names ("user's children" -> children), () for any other subject:
        saying something of "my car" presupposes having one."""
        root = subject_root(subject_n)
        if root == subject_n:
            return ()
        thing = subject_n[len(root) + 3 :]
        words = thing.split()
        if not 0 < len(words) <= 3 or any(w in _PRONOUNS for w in words) or "'s" in thing:
            return ()  # "user's wife's car" is the wife's
        return self.core(thing)

    def thing_names(self, obj: str | None) -> tuple[str, ...]:
        """How a possessive subject may name the thing ``obj`` names ("a car": "car", "cars"; "any children":
        "children", "child", "kids", "kid"; "any siblings": "sister", "brother"), to find what was said of
        "my car" without scanning the memory."""
        words = self.kind(obj)
        if not words:
            return ()
        heads = (words[-1], *self.head_words(obj), *(" ".join(v) for v in self._covers.get(self.core(obj), ())))
        out = dict.fromkeys((" ".join(words), *heads))
        for head in heads:
            out.update(dict.fromkeys((head + "s", head[:-1] if head.endswith("s") else head)))
        return tuple(out)

    # -- corrections --------------------------------------------------------------------
    @staticmethod
    def shape(obj: str | None) -> str | None:
        """The kind of value an object is: a time, a number, a weekday, a date, a name; None for the rest."""
        text = (obj or "").strip()
        if not text:
            return None
        if _TIME.match(text) and not _NUMBER.match(text):
            return "time"
        if _NUMBER.match(text):
            return "number"
        if _WEEKDAY.match(text):
            return "weekday"
        if _DATE.match(text):
            return "date"
        if _NAME.match(text):
            return "name"
        return None


_PARTICLES: Final = frozenset({
    "to", "in", "at", "on", "for", "with", "from", "by", "of", "about", "into", "through", "up", "out", "off", "over",
})


def _verb_stem(predicate: str) -> str:
    """A predicate the registry does not know, by its verb's stem and without trailing prepositions, so the
    tenses and prepositions of one verb meet ("lifted"/"lift", "meditate_for"/"meditate"). Names only."""
    words = predicate.split("_")
    verb = words[0]
    for ending in ("ing", "ed", "es", "s", "e"):
        if verb.endswith(ending) and len(verb) - len(ending) >= 3:
            verb = verb[: -len(ending)]
            break
    if len(verb) > 3 and verb[-1] == verb[-2] and verb[-1] not in "aeiou":
        verb = verb[:-1]
    rest = [w for w in words[1:] if w not in _PARTICLES]
    return "_".join([verb, *rest])


_NUMBER_WORDS: Final = {w: str(i) for i, w in enumerate(
    ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve"])}
_UNITS: Final = ("k", "m", "am", "pm", "%", "st", "nd", "rd", "th", "x")
_COUNT: Final = re.compile(r"^(\d+(?:\.\d+)?)(?:" + "|".join(_UNITS) + r")?$")


def _count(text: str | None) -> str | None:
    """The number a single word says ("three", "3", "85k", "8am"), or None (several words, or no number)."""
    words = (text or "").lower().split()
    if len(words) != 1:
        return None
    word = words[0]
    if word in _NUMBER_WORDS:
        return _NUMBER_WORDS[word]
    m = _COUNT.match(word)
    return m.group(1) if m is not None else None


def _make(name: str, spec: AttributeSpec) -> Attribute:
    return Attribute(name, spec.cardinality == "single", spec.implies)


def _run_in(short: tuple[str, ...], long: tuple[str, ...]) -> bool:
    """Whether ``short`` occurs in ``long`` as a run of whole words."""
    n = len(short)
    if n == 0 or n > len(long):
        return False
    return any(long[i : i + n] == short for i in range(len(long) - n + 1))


