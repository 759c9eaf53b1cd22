"""Deterministic rule-based extractor: English chat statements -> claims, no model.

Every proposal goes through :mod:`extractors.validation`, so the rules can be
generous and the validator keeps them honest; rejected proposals are reported.

Conventions (the engine matches claims on normalised subject + predicate +
object, so the same fact phrased twice must give the same triple):

Subjects
  - owner roles (user, human): "I", "we", "me" -> ``"user"`` (whatever the
    speaker field says; a named subject equal to the speaker is also "user");
  - participant: first person -> the speaker's name, else ``"participant"``;
  - named third parties keep their name as written ("Alice", "May");
    "my sister" -> ``"user's sister"``; he/she/they are never resolved (no claim);
  - assistant commitments and completed actions -> ``"assistant"``; facts the
    assistant attributes to the user ("you told me you live in Berlin") -> "user";
  - instructions -> subject ``"assistant"``, predicate ``"should"``, object the
    instructed action ("answer in French"); "never"/"don't" give negative polarity;
  - tool results -> the tool's speaker name, ``metadata["tool_name"]``, else "tool".

Predicates (snake_case, synonyms folded)
  lives_in (live/reside/based in/moved to), works_at (work at|for, employed
  at|by, joined, left), works_as, likes (love/like/enjoy/adore/fan of/into;
  hate/dislike/detest/can't stand are ``likes`` with NEGATIVE polarity, so
  "I love tea" / "I hate tea" contradict), prefers (object = preferred thing,
  ``metadata["over"]`` = the other), uses (use/using/rely on/switched to/
  replaced X with), has (have/own/'ve got), speaks, allergic_to, is_from,
  born_in, studies, studies_at, eats, drinks, plays, drives, is_a, is, age,
  married_to, and ``<attribute>`` for "my <attribute> is <value>"
  (favourite -> favorite, colour -> color). Decisions (DECISION nodes, explicit
  choice verbs only): ``chose`` (chose/selected/opted for/decided on|to use/go
  with; rejected/decided against -> negative) and ``decided_to_<verb>``. Tasks
  (TASK nodes): ``needs_to_<verb>`` (need to/have to/must/remind me to),
  ``will_<verb>`` (first-person future; a third party's "will" is a FACT about that party, and the
  assistant's "I'll <any action verb> <object>" is its commitment). Speech acts keep their cue:
  ``trying_to_<verb>``, ``plans_to_<verb>``, ``wants_to_<verb>``, ... and
  never become ``uses``/``runs``.

Epistemic defaults
  settled user/participant statements are ASSERTED; the speaker's own
  attempts, plans, wants and needs (speech-act predicates) are OBSERVED, as
  PRME's speech-act recovery types them (§8.8); instructions follow the role
  table (user -> OBSERVED, system -> INFERRED); tool results ASSERTED;
  everything from the assistant INFERRED. Hedges -> HYPOTHETICAL, explicit
  conditions -> CONDITIONAL with the condition text from the marker word to the
  end of its clause. OBSERVED is not used for plain statements: a chat message
  is testimony, not a measurement. might/may/could (and a non-system "should") + any
  bare verb is a hypothetical clause even when the verb is outside the generic whitelist.

Temporal intent: ``update`` for now/no longer/anymore/recently/moved/switched/
joined/left/started/stopped/replaced (with ``replaces_object`` when the old
value is named; a negative update names its own object), else ``assertion``.

Package layout, one job per module:
  ``lexicon``    word lists, verb forms and the verb table, as data
  ``proto``      proto claims and proposals, what every role's rules produce
  ``clauses``    the clause parser all roles share: segments, clauses, subjects, auxiliaries, objects
  ``user``       the statement grammar, and the user's own clause kinds (instructions, reminders)
  ``system``     system prompts: identities, policies, standing instructions
  ``assistant``  restatements of the user, commitments, completed actions
  ``tool``       tool results and relayed sources
  ``extractor``  :class:`RuleExtractor`: the role dispatch, epistemic typing and validation
"""

from extractors.rules.extractor import EXTRACTOR_VERSION, RuleExtractor

__all__ = ["EXTRACTOR_VERSION", "RuleExtractor"]
