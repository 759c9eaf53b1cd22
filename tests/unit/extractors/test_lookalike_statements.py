"""Statements that look like secrets but are not (issue #24: look-alikes keep their claims), and the
grammar they need: the tools a speaker names in German, French and Spanish, nouns spelled like verbs
before a head noun, long noun phrases, bracketed asides, long identifiers, bounds, labels and what
happened to a thing. Messages written for these tests, not taken from the evaluation sets."""

from __future__ import annotations

from typing import Any

import pytest

from extractors.rules import RuleExtractor
from schemas.events import validate_event
from streams.agents import admit_event

_X = RuleExtractor()


def _claims(content: str, role: str = "user") -> list[Any]:
    ev: dict[str, Any] = {"event_id": "e-1", "tenant_id": "t", "owner_id": "u", "scope": "personal",
                          "conversation_id": "c", "role": role, "content": content,
                          "occurred_at": "2026-03-02T10:00:00+00:00"}  # fmt: skip
    return list(_X.extract(admit_event(validate_event(ev))).claims)


def _triples(content: str) -> list[tuple[str, str, str | None, str, str]]:
    return [(c.subject, c.predicate, c.object, c.polarity.value, c.epistemic_type.value) for c in _claims(content)]


@pytest.mark.parametrize(
    ("text", "predicate", "obj"),
    [
        ("Ich verwende seit Jahren Enpass.", "uses", "Enpass"),
        ("ich nutze NordPass für die Arbeit", "uses", "NordPass"),
        ("Ich verwalte meine Zugangsdaten mit KeePassXC.", "uses", "KeePassXC"),
        ("Mein Passwortmanager ist Bitwarden.", "password_manager", "Bitwarden"),
        ("J'utilise Bitwarden depuis 2021.", "uses", "Bitwarden"),
        ("Je garde mes mots de passe dans Proton Pass, c'est pratique.", "uses", "Proton Pass"),
        ("Mon gestionnaire de mots de passe est 1Password.", "password_manager", "1Password"),
        ("Utilizo LastPass para el trabajo.", "uses", "LastPass"),
        ("Guardo todas mis contraseñas en Keeper.", "uses", "Keeper"),
        ("Mi administrador de contraseñas es RoboForm.", "password_manager", "RoboForm"),
        # after a label or a filler, the object-first Spanish form, a migration, and a later clause's negation
        ("zur info: wir haben jetzt alle passwörter in Enpass, fragt mich nicht wo", "uses", "Enpass"),
        ("bref, j'ai finalement migré de 1Password vers Proton Pass", "uses", "Proton Pass"),
        ("mis contraseñas de casa las guardo en KeePassXC, no en el navegador", "uses", "KeePassXC"),
    ],
)
def test_the_tool_a_speaker_names_in_german_french_or_spanish_is_kept(text: str, predicate: str, obj: str) -> None:
    assert ("user", predicate, obj, "positive", "ASSERTED") in _triples(text)


@pytest.mark.parametrize(
    "text",
    [
        "Ich nutze kein Bitwarden mehr.",
        "Ich nutze vielleicht bald Bitwarden.",
        "Je n'utilise pas Bitwarden.",
        "Si je change, j'utilise Bitwarden.",
        "No uso LastPass.",
        "¿Uso LastPass para el trabajo?",
        "Quizás uso LastPass.",
        "wir haben keine passwörter in Enpass",
        "j'ai migré de Bitwarden vers quoi?",
    ],
)
def test_a_negated_hedged_conditional_or_asked_foreign_clause_yields_no_use(text: str) -> None:
    assert not [t for t in _triples(text) if t[1] in ("uses", "password_manager")], text


def test_a_foreign_password_itself_stays_withheld() -> None:
    got = _claims("Mein Passwort ist Sonne-Mond-73")
    assert all("Sonne-Mond-73" not in (c.object or "") + c.evidence_quote for c in got)


@pytest.mark.parametrize(
    ("text", "subject", "obj"),
    [
        # a noun spelled like a verb before the head noun
        ("The deploy window is friday evening.", "deploy window", "friday evening"),
        ("the build cache key is ubuntu-22-node-20", "build cache key", "ubuntu-22-node-20"),
        # longer noun phrases after a determiner
        ("The serial number of the office label printer is CN-4481-ZX.", "serial number of the office label printer",
         "CN-4481-ZX"),
        # a bare noun phrase of four words
        ("Artifact retention window is 30 days", "Artifact retention window", "30 days"),
    ],
)
def test_noun_phrase_subjects_meet_their_copula(text: str, subject: str, obj: str) -> None:
    assert any(t[0] == subject and t[2] == obj for t in _triples(text)), _triples(text)


def test_a_plural_verb_after_its_subject_stays_a_verb() -> None:
    got = _triples("my parents run bakeries now")
    assert ("user's parents", "run", "bakeries", "positive", "ASSERTED") in got


def test_a_bracketed_aside_between_subject_and_verb_is_left_out() -> None:
    assert ("user", "bike", "Brompton", "positive", "ASSERTED") in _triples("my bike (the blue one) is a Brompton")
    assert ("user's brother", "lives_in", "Porto", "positive", "ASSERTED") in _triples(
        "my brother (the younger one) lives in Porto")


@pytest.mark.parametrize("text", ["my bike (I think) is a Brompton", "my bike (not the old one) is a Brompton"])
def test_an_aside_that_hedges_or_negates_is_not_dropped(text: str) -> None:
    assert not [t for t in _triples(text) if t[2] == "Brompton" and t[4] == "ASSERTED"], _triples(text)


def test_a_long_identifier_is_an_object() -> None:
    key = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl ci@build-01"
    got = _triples(f"Our signing key (public, fine to paste) is {key}")
    assert any(t[2] == key for t in got), got


def test_a_url_object_keeps_its_scheme() -> None:
    assert any(t[2] == "https://docs.example.org/start" for t in _triples("our docs site is https://docs.example.org/start"))


def test_a_hash_that_starts_with_digits_is_no_quantity() -> None:
    digest = "7d865e959b2466918c9863afca942d0fb89d7c9ac0c99bafc3749504ded97730"
    got = [c for c in _claims(f"the checksum of the installer is {digest}") if c.object == digest]
    assert got and got[0].quantity is None


def test_a_number_before_a_street_name_is_no_age() -> None:
    got = _triples("the venue address is 48 Harbour Road")
    assert got and all(t[1] != "age" for t in got), got
    assert any(t[2] == "48 Harbour Road" for t in got)


def test_a_bound_stays_part_of_the_constrained_value() -> None:
    assert ("Usernames", "must_be", "at least 3 characters long", "positive", "ASSERTED") in _triples(
        "Usernames must be at least 3 characters long.")
    assert any(t[1] == "needs_to_be" for t in _triples("I must be at the airport by 6"))


def test_a_short_label_before_a_clause_with_its_own_subject_is_skipped() -> None:
    assert any(t[0] == "main branch" for t in _triples("Team rule: the main branch is protected."))
    assert ("user", "needs_to_call", "plumber", "positive", "ASSERTED") in _triples("Call the plumber re: the leak.")


@pytest.mark.parametrize(
    ("text", "subject", "predicate"),
    [
        ("The replacement card still hasn't arrived.", "replacement card", "arrive"),
        ("the package hasn't shipped yet", "package", "ship"),
    ],
)
def test_what_did_not_happen_to_a_thing_is_a_negative_claim_without_object(text: str, subject: str,
                                                                            predicate: str) -> None:  # fmt: skip
    assert (subject, predicate, None, "negative", "ASSERTED") in _triples(text)


@pytest.mark.parametrize(
    ("text", "subject", "obj"),
    [
        ("postgres runs on port 5432", "postgres", "port 5432"),
        ("we're deploying to us-east-1 tomorrow", "user", "us-east-1"),
    ],
)
def test_infrastructure_said_in_chat_keeps_its_value(text: str, subject: str, obj: str) -> None:
    assert any(t[0] == subject and t[2] == obj for t in _triples(text)), _triples(text)


@pytest.mark.parametrize("text", ["lol sounds good", "yeah works for me"])
def test_chat_filler_before_a_verb_is_no_subject(text: str) -> None:
    assert _triples(text) == []


@pytest.mark.parametrize(
    ("text", "subject", "predicate", "obj"),
    [
        # a short of/for/per phrase inside the subject, with or without a determiner
        ("signing cert for the portal is at certs/portal-2026.pem", "signing cert for the portal", "is_at",
         "certs/portal-2026.pem"),
        ("md5 of the tarball is 0cc175b9c0f1b6a831c399e269772661", "md5 of the tarball", "is",
         "0cc175b9c0f1b6a831c399e269772661"),
        ("the max uploads per user is 20", "max uploads per user", "is", "20"),
        # a relative clause inside the subject
        ("the cheese we bought is from batch 88-Q", "cheese we bought", "is_from", "batch 88-Q"),
        # a plural subject before a bare verb; infrastructure verbs
        ("backups go in the glacier bucket", "backups", "go_in", "glacier bucket"),
        ("nginx listens on 8080 on this box", "nginx", "listen_on", "8080"),
        ("the worker binds to 0.0.0.0:9100", "worker", "bind_to", "0.0.0.0:9100"),
    ],
)
def test_subjects_with_phrases_inside_and_infrastructure_verbs(text: str, subject: str, predicate: str,
                                                               obj: str) -> None:  # fmt: skip
    assert (subject, predicate, obj, "positive", "ASSERTED") in _triples(text), _triples(text)


@pytest.mark.parametrize(
    ("text", "obj"),
    [
        # an identifier after a preposition is the fact worth keeping
        ("we booted the runners from ami-0f3e9a1b2c4d5e6f7 on monday", "runners from ami-0f3e9a1b2c4d5e6f7"),
        ("we throttle uploads at 1,500 requests an hour", "uploads at 1,500 requests"),
        ("i sent 2,400 invites with brevo", "2,400 invites"),
    ],
)
def test_an_identifier_after_a_preposition_stays_with_the_object(text: str, obj: str) -> None:
    assert any(t[2] == obj for t in _triples(text)), _triples(text)


@pytest.mark.parametrize(
    ("text", "obj"),
    [("I'm meeting friends at 7 tonight", "friends"), ("she works at a bakery in Leeds", None),
     ("tea, coffee", None)],
)
def test_a_plain_prepositional_phrase_is_still_cut(text: str, obj: str | None) -> None:
    assert not any(t[2] and (" at " in t[2] or " in " in t[2]) for t in _triples(text)), _triples(text)
    if obj is not None:
        assert any(t[2] == obj for t in _triples(text)), _triples(text)


@pytest.mark.parametrize(
    ("text", "subject", "obj"),
    [
        # "<label>: <identifier>": a value written after its name
        ("parcel ref for the sofa: DX4471902GB", "parcel ref for the sofa", "DX4471902GB"),
        ("build id: 2026.11.3-rc2", "build id", "2026.11.3-rc2"),
        # a longer label before a clause with its own noun subject
        ("house rule for the new flat: bins are collected on thursdays", "bins", "thursdays"),
        # a relative clause ending in the main verb
        ("the laptop we lease from dell expires in 2027", "laptop we lease from dell", "2027"),
        # a lower-case name with a digit is a subject, also after a comma
        ("s3 stores the nightly dumps", "s3", "nightly dumps"),
        ("ran the installer again, md5 matched 0cc175b9c0f1b6a831c399e269772661",
         "md5", "0cc175b9c0f1b6a831c399e269772661"),
        # an identifier after "over to"
        ("we shifted the queue over to eu-north-1 in may", "user", "queue over to eu-north-1"),
    ],
)
def test_labels_relative_clauses_and_names_with_digits(text: str, subject: str, obj: str) -> None:
    assert any(t[0] == subject and t[2] == obj for t in _triples(text)), _triples(text)


@pytest.mark.parametrize("text", ["eta: 5pm", "Step 2: npm install", "q: is 8080 free?", "we: 42"])
def test_a_label_that_is_not_a_name_gives_no_value_claim(text: str) -> None:
    assert not any(t[1] == "is" for t in _triples(text)), _triples(text)


@pytest.mark.parametrize(
    ("text", "subject", "predicate", "obj"),
    [
        ("all the team calendars live in Fastmail now", "team calendars", "lives_in", "Fastmail"),
        ("jenkins moved to 8081 after the upgrade", "jenkins", "moved_to", "8081"),
        ("trace-id was tr_91XkQ2mL7 in the logs", "trace-id", "is", "tr_91XkQ2mL7"),
        ("previous stable build was 4.2.1-hotfix3", "previous stable build", "is", "4.2.1-hotfix3"),
        ("visitor network at the studio is Studio-Guest", "visitor network at the studio", "is", "Studio-Guest"),
        ("my brother moved to Lisbon", "user's brother", "lives_in", "Lisbon"),
    ],
)
def test_things_moved_and_past_values_keep_their_value(text: str, subject: str, predicate: str, obj: str) -> None:
    assert any(t[:3] == (subject, predicate, obj) for t in _triples(text)), _triples(text)


@pytest.mark.parametrize(
    ("text", "subject", "obj"),
    [
        ("the sidebar bg is #1f2937 now", "sidebar bg", "#1f2937"),
        ("the release tag is #stable", "release tag", "#stable"),
        ("the on-call alias is @platform-oncall", "on-call alias", "@platform-oncall"),
        ("the helpdesk line is +49 30 901820 btw", "helpdesk line", "+49 30 901820"),
        ("the log dir is /var/log/caddy", "log dir", "/var/log/caddy"),
        ("the deploy key path is ~/.ssh/deploy_ed25519", "deploy key path", "~/.ssh/deploy_ed25519"),
    ],
)
def test_a_complement_that_starts_with_an_identifiers_sign_is_an_object(text: str, subject: str, obj: str) -> None:
    assert any(t[0] == subject and t[2] == obj for t in _triples(text)), _triples(text)


@pytest.mark.parametrize(
    ("text", "obj"),
    [
        ("grafana moved to 3300 because 3000 clashes with the node app, ok?", "3300"),
        ("i moved to lisbon in march, right?", "lisbon"),
    ],
)
def test_a_statement_closed_by_an_agreement_tag_is_stated(text: str, obj: str) -> None:
    assert any((t[2] or "").lower() == obj for t in _triples(text)), _triples(text)


def test_a_real_question_closed_by_a_tag_is_still_a_question() -> None:
    assert _triples("do you live in lisbon, right?") == []
