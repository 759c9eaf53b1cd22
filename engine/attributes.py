"""The attribute registry: which claims are about the same thing, and how many values it holds.

Whether two claims contradict, whether a new one retires an old one or whether they simply coexist
depends on what they are about: a person lives in one place at a time but speaks many languages;
"works at", "employed by" and "my employer is" are one attribute; "dark chocolate" and "chocolate"
are one value for a like. That knowledge is data, not code paths: ``engine/attributes.json`` holds
the canonical attributes with their synonyms, cardinality, prefix families (``favorite_*``), object
classes (an ``is_a`` whose object is an occupation is a role), inverse pairs, subject aliases, value
synonyms, the qualifiers ignored when objects are compared, and the update and correction words the
rule extractor reads. :class:`AttributeRegistry` is that file as an immutable object; a deployment
extends it (globally or per tenant) with a file of the same shape, merged by :meth:`extended`.

Loading the bundled file reads package data once at import (the same bytes every run, like code);
everything else here is pure. The file a deployment points at is read by the application
(``extractors.base.load_attribute_file``), never by the engine.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from importlib import resources
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from schemas.canonical import canonical_json, sha256_hex

Cardinality = Literal["single", "multi"]


def _regex(pattern: str) -> None:
    try:
        re.compile(pattern)
    except re.error as exc:
        raise ValueError(f"not a regular expression: {pattern!r} ({exc})") from None


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class AttributeSpec(_Frozen):
    """One canonical attribute: the predicates that mean it and how many values it holds at a time."""

    cardinality: Cardinality = "multi"
    synonyms: tuple[str, ...] = ()
    #: A claim of this attribute also states ``implies`` of the same subject (a favourite is liked).
    implies: str | None = None
    #: For prefix families only: the spelling the family is known by (``favourite_`` -> ``favorite_``).
    canonical: str | None = None


class ObjectClass(_Frozen):
    """Claims of ``predicates`` whose object is of a class belong to ``attribute`` ("I'm a nurse" is a role)."""

    attribute: str
    predicates: tuple[str, ...]
    #: A regular expression the object's normalised text must match.
    pattern: str | None = None
    #: Whole normalised objects that belong (marital statuses).
    values: tuple[str, ...] = ()
    #: Head nouns (the last word of the object) that belong (occupations).
    heads: tuple[str, ...] = ()
    #: Words that keep an object out of the class ("a keen photographer" is a hobby, not a role).
    not_with: tuple[str, ...] = ()

    @field_validator("pattern")
    @classmethod
    def _compiles(cls, value: str | None) -> str | None:
        if value is not None:
            _regex(value)
        return value


class AttributeForm(_Frozen):
    about: str = ""
    #: Head nouns of "my <attribute> is <value>" attributes that hold several values ("my hobby is ...").
    multi_valued_heads: tuple[str, ...] = ()


class Matching(_Frozen):
    about: str = ""
    #: Leading words dropped from an object before it is compared (articles, possessives, quantities).
    determiners: tuple[str, ...] = ()
    #: Regular expressions removed from an object's text before it is compared ("three times", "every day").
    qualifiers: tuple[str, ...] = ()
    #: Trailing category nouns dropped before comparing ("Thai food" and "Thai", "Harry Potter films").
    category_nouns: tuple[str, ...] = ()
    minimum_core_words: int = Field(default=1, ge=1)

    @field_validator("qualifiers")
    @classmethod
    def _compile(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        for pattern in value:
            _regex(pattern)
        return value


class Premise(_Frozen):
    """What a claim must say for an entailment to hold: one of ``attributes`` with one of ``values``
    (normalised objects; empty = any object, which the conclusion then names)."""

    attributes: tuple[str, ...]
    values: tuple[str, ...] = ()
    #: General values (keys of ``hyponyms``) one of which must cover the object ("has a beer": alcohol).
    covered_by: tuple[str, ...] = ()


class Conclusion(_Frozen):
    """What an entailed claim says: one of ``attributes`` of ``object`` (None = the premise's own object)."""

    attributes: tuple[str, ...]
    object: str | None = None
    polarity: Literal["positive", "negative"] = "negative"


class Entailment(_Frozen):
    """A claim that states another one: "I'm vegetarian" says "I don't eat meat", "allergic to peanuts" says
    "I don't eat peanuts". The engine compares the stated claim with what earlier claims say, so a later
    "I eat chicken daily" contests "I'm vegetarian" as it would contest "I don't eat meat"."""

    premise: Premise
    conclusion: Conclusion


class Updates(_Frozen):
    about: str = ""
    update_verbs: tuple[str, ...] = ()
    negative_update_verbs: tuple[str, ...] = ()


class Corrections(_Frozen):
    about: str = ""
    #: How far back a correction that names no value looks for the claim it corrects.
    window_hours: float = Field(default=168.0, gt=0)


class AttributeRegistry(_Frozen):
    """The registry as one immutable value; ``enabled=False`` is the engine_v1 policy (exact matching only)."""

    version: str
    about: str = ""
    enabled: bool = True
    attributes: dict[str, AttributeSpec] = Field(default_factory=dict)
    prefixes: dict[str, AttributeSpec] = Field(default_factory=dict)
    attribute_form: AttributeForm = AttributeForm()
    object_classes: tuple[ObjectClass, ...] = ()
    #: inverse predicate -> the direct one it mirrors ("employs" -> "works_at", subject and object swapped).
    inverse: dict[str, str] = Field(default_factory=dict)
    #: scope -> groups of subjects that are one ("we", "the team" and the owner in project scope).
    subject_aliases: dict[str, tuple[tuple[str, ...], ...]] = Field(default_factory=dict)
    #: scope -> the owner's subject whose things are everyone's there: in a project "our CI" and "the CI"
    #: are one subject ("user's ci" and "ci").
    shared_things: dict[str, str] = Field(default_factory=dict)
    #: Groups of values that name the same thing ("vet", "veterinarian").
    value_synonyms: tuple[tuple[str, ...], ...] = ()
    #: Kinds of thing one uses one of at a time, by their values ("browser": Chrome, Firefox, ...): an update
    #: to one value of a kind ("switched to Firefox") ends the use of another ("I use Chrome"), whatever the
    #: attribute's cardinality; without update wording two values of a kind coexist.
    value_kinds: dict[str, tuple[str, ...]] = Field(default_factory=dict)
    #: Claims that state other claims (see :class:`Entailment`); applied once, never chained.
    entailments: tuple[Entailment, ...] = ()
    #: general value -> the values it covers ("meat": chicken, beef, ...): "I don't eat meat" denies "I eat
    #: chicken", while "I don't eat chicken" says nothing of meat. One level; a covered value may cover more.
    hyponyms: dict[str, tuple[str, ...]] = Field(default_factory=dict)
    #: Nouns of people: "user's wife" is someone else, while "user's ci" is a thing of the user's.
    person_nouns: tuple[str, ...] = ()
    matching: Matching = Matching()
    updates: Updates = Updates()
    corrections: Corrections = Corrections()

    @classmethod
    def disabled(cls) -> AttributeRegistry:
        """No registry: claims meet only on the same subject, predicate and object text (engine_v1)."""
        return cls(version="none", enabled=False)

    def digest(self) -> str:
        """A short, stable fingerprint of the registry's content (names a tenant's extension in the log)."""
        return sha256_hex(canonical_json(self.model_dump(mode="json")))[:12]

    def extended(self, extension: Mapping[str, Any]) -> AttributeRegistry:
        """This registry with ``extension`` (a mapping of the file's shape, every part optional) merged in.

        Attributes and prefix families are added, or widened: their synonyms are joined and a given
        cardinality or implication replaces the old one. Object classes, entailments, value synonyms, subject
        alias groups, qualifiers and update words are appended; mappings are merged key by key. The
        version becomes ``<base>+<fingerprint of the extension>``, so operations name what decided them.
        """
        if not isinstance(extension, Mapping):
            raise ValueError("an attribute extension is a JSON object")
        known = {"version", "about", "attributes", "prefixes", "attribute_form", "object_classes", "inverse",
                 "subject_aliases", "shared_things", "value_synonyms", "value_kinds", "person_nouns", "matching",
                 "updates", "corrections", "entailments", "hyponyms"}  # fmt: skip
        unknown = sorted(set(extension) - known)
        if unknown:
            raise ValueError(f"unknown attribute extension keys: {', '.join(unknown)}")
        base = self.model_dump(mode="json")
        data = dict(base)
        data["attributes"] = _merge_specs(base["attributes"], extension.get("attributes", {}))
        data["prefixes"] = _merge_specs(base["prefixes"], extension.get("prefixes", {}))
        form = dict(base["attribute_form"])
        form["multi_valued_heads"] = _union(form["multi_valued_heads"],
                                            _mapping(extension.get("attribute_form", {})).get("multi_valued_heads", ()))
        data["attribute_form"] = form
        data["object_classes"] = [*base["object_classes"], *_sequence(extension.get("object_classes", ()))]
        data["inverse"] = {**base["inverse"], **_mapping(extension.get("inverse", {}))}
        aliases = {k: list(v) for k, v in base["subject_aliases"].items()}
        for scope, groups in _mapping(extension.get("subject_aliases", {})).items():
            aliases[scope] = [*aliases.get(scope, []), *_sequence(groups)]
        data["subject_aliases"] = aliases
        data["shared_things"] = {**base["shared_things"], **_mapping(extension.get("shared_things", {}))}
        data["value_synonyms"] = [*base["value_synonyms"], *_sequence(extension.get("value_synonyms", ()))]
        kinds = {k: list(v) for k, v in base["value_kinds"].items()}
        for kind, values in _mapping(extension.get("value_kinds", {})).items():
            kinds[kind] = list(_union(kinds.get(kind, ()), values))
        data["value_kinds"] = kinds
        data["person_nouns"] = _union(base["person_nouns"], extension.get("person_nouns", ()))
        data["entailments"] = [*base["entailments"], *_sequence(extension.get("entailments", ()))]
        hyponyms = {k: list(v) for k, v in base["hyponyms"].items()}
        for general, values in _mapping(extension.get("hyponyms", {})).items():
            hyponyms[general] = list(_union(hyponyms.get(general, ()), values))
        data["hyponyms"] = hyponyms
        matching = dict(base["matching"])
        ext_matching = _mapping(extension.get("matching", {}))
        for key in ("determiners", "qualifiers", "category_nouns"):
            matching[key] = _union(matching[key], ext_matching.get(key, ()))
        if "minimum_core_words" in ext_matching:
            matching["minimum_core_words"] = ext_matching["minimum_core_words"]
        data["matching"] = matching
        updates = dict(base["updates"])
        ext_updates = _mapping(extension.get("updates", {}))
        for key in ("update_verbs", "negative_update_verbs"):
            updates[key] = _union(updates[key], ext_updates.get(key, ()))
        data["updates"] = updates
        corrections = dict(base["corrections"])
        corrections.update({k: v for k, v in _mapping(extension.get("corrections", {})).items() if k != "about"})
        data["corrections"] = corrections
        fingerprint = sha256_hex(canonical_json(_jsonable(extension)))[:12]
        data["version"] = f"{self.version}+{fingerprint}"
        data["enabled"] = True
        return AttributeRegistry.model_validate(data)


def _mapping(value: Any) -> Mapping[str, Any]:
    if not isinstance(value, Mapping):
        raise ValueError("expected a JSON object in the attribute extension")
    return value


def _sequence(value: Any) -> list[Any]:
    if isinstance(value, (str, bytes)) or not isinstance(value, (list, tuple)):
        raise ValueError("expected a JSON array in the attribute extension")
    return list(value)


def _union(base: Any, extra: Any) -> list[str]:
    out = list(base)
    for item in _sequence(extra) if extra else ():
        if item not in out:
            out.append(item)
    return out


def _merge_specs(base: Mapping[str, Any], extra: Any) -> dict[str, Any]:
    out = {k: dict(v) for k, v in base.items()}
    for name, spec in _mapping(extra).items():
        spec = _mapping(spec)
        current = out.setdefault(name, {"cardinality": "multi", "synonyms": [], "implies": None, "canonical": None})
        for key, value in spec.items():
            if key == "synonyms":
                current["synonyms"] = _union(current.get("synonyms", []), value)
            else:
                current[key] = value
    return out


def _jsonable(value: Any) -> Any:
    return json.loads(json.dumps(value, sort_keys=True, ensure_ascii=False))


class TenantAttributes(_Frozen):
    """What a deployment's attribute file adds: for every tenant, and for some tenants only.

    The file is ``{"all_tenants": {<extension>}, "tenants": {"<tenant id>": {<extension>}}}``; a tenant's
    own extension is merged after the one for every tenant.
    """

    all_tenants: dict[str, Any] = Field(default_factory=dict)
    tenants: dict[str, dict[str, Any]] = Field(default_factory=dict)

    @classmethod
    def parse(cls, text: str) -> TenantAttributes:
        """The file's text (JSON); a broken file raises ``ValueError`` naming what is wrong."""
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise ValueError(f"the attribute file is not JSON: {exc}") from exc
        if not isinstance(data, dict):
            raise ValueError("the attribute file is a JSON object")
        unknown = sorted(set(data) - {"all_tenants", "tenants", "about"})
        if unknown:
            raise ValueError(f"unknown attribute file keys: {', '.join(unknown)}")
        parsed = cls(all_tenants=data.get("all_tenants", {}), tenants=data.get("tenants", {}))
        parsed.registries(DEFAULT_REGISTRY)  # every extension must merge
        return parsed

    def registries(self, base: AttributeRegistry) -> tuple[AttributeRegistry, dict[str, AttributeRegistry]]:
        """The registry for every tenant, and each listed tenant's own."""
        common = base.extended(self.all_tenants) if self.all_tenants else base
        return common, {tenant: common.extended(ext) for tenant, ext in sorted(self.tenants.items())}


def _load_default() -> AttributeRegistry:
    text = resources.files("engine").joinpath("attributes.json").read_text(encoding="utf-8")
    return AttributeRegistry.model_validate_json(text)


#: The bundled registry (``engine/attributes.json``).
DEFAULT_REGISTRY: AttributeRegistry = _load_default()
