"""Memory is context, never authority (TRUST-FACTS §7, issue #29): a claim that would grant authority is
refused at ingestion with ``authority_grant``, whichever extractor proposed it; mentions of security
tools and policies stay ordinary claims."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest

from engine.authority import authority_grant
from extractors import reasons
from extractors.rules import RuleExtractor
from extractors.validation import validate_claims
from schemas.events import ConversationEvent


def _event(content: str, role: str = "user") -> ConversationEvent:
    return ConversationEvent(event_id="e1", tenant_id="t1", owner_id="alice", scope="personal", role=role,
                             content=content, occurred_at=datetime(2026, 3, 1, 12, tzinfo=UTC))  # fmt: skip


#: (message, subject, predicate, object) as an LLM extractor would propose it, and the kind refused.
GRANTS: list[tuple[str, str, str, str, str]] = [
    ("You may deploy to prod without asking me.", "assistant", "may_deploy_to", "prod", "permission"),
    ("I authorise payments up to $5k.", "user", "authorises", "payments up to $5k", "payment_approval"),
    ("The bot has admin access.", "bot", "has", "admin access", "production_access"),
    ("You have my permission to merge into main.", "assistant", "has_permission_to_merge_into", "main",
     "access_grant"),
    ("I'm giving you access to my bank account.", "user", "gives_access_to", "bank account", "access_grant"),
    ("You're allowed to approve expenses under $200.", "assistant", "allowed_to_approve", "expenses under $200",
     "payment_approval"),
    ("Feel free to spend up to $100 on my card.", "assistant", "may_spend", "up to $100", "permission"),
    ("I delegate the hiring decisions to you.", "user", "delegates", "hiring decisions", "delegation"),
    ("The assistant can push to production.", "assistant", "push_to", "production", "permission"),
    ("You can sign contracts on my behalf.", "assistant", "signs_on_behalf_of", "user", "delegation"),
    ("Going forward the agent is authorized to refund customers.", "agent", "authorized_to_refund", "customers",
     "permission"),
    ("Jess gave the deploy bot write access to the repo.", "deploy bot", "has", "write access", "production_access"),
]

#: Ordinary claims about security tools, policies and everyday permissions: nothing is granted.
ORDINARY: list[tuple[str, str, str, str]] = [
    ("My password manager is 1Password.", "user", "password_manager", "1Password"),
    ("Our key rotation policy is 90 days.", "user", "key_rotation_policy", "90 days"),
    ("I use Okta for SSO.", "user", "uses", "Okta"),
    ("We enforce 2FA on every account.", "user", "enforce", "2FA"),
    ("Our deploy policy requires two approvals.", "user's deploy policy", "require", "two approvals"),
    ("I approved the budget yesterday.", "user", "approve", "budget"),
    ("I'm allowed to work from home on Fridays.", "user", "allowed_to", "work"),
    ("I have access to the gym at work.", "user", "has_access_to", "gym"),
    ("I can pay the rent on Friday.", "user", "can_pay", "rent"),
    ("Our team uses Vault for secrets.", "user's team", "uses", "Vault"),
    ("Allow users to export reports as CSV provided they have the Admin role.", "app", "allows_users_to_export",
     "reports"),
]


def test_a_denial_of_access_grants_nothing() -> None:
    text = "Nobody in the club has write access to the release bucket."
    assert authority_grant("club", "has", "write access to the release bucket", text) == "production_access"
    assert authority_grant("club", "has", "write access to the release bucket", text, negative=True) is None


def _proposal(content: str, subject: str, predicate: str, obj: str) -> dict[str, Any]:
    return {"subject": subject, "predicate": predicate, "object": obj, "epistemic_type": "ASSERTED",
            "evidence_quote": content}  # fmt: skip


@pytest.mark.parametrize(("content", "subject", "predicate", "obj", "kind"), GRANTS)
def test_a_claim_that_would_grant_authority_is_refused_with_a_reason(
    content: str, subject: str, predicate: str, obj: str, kind: str
) -> None:
    assert authority_grant(subject, predicate, obj, content) == kind
    out = validate_claims(_event(content), [_proposal(content, subject, predicate, obj)])
    assert not out.accepted
    [rejected] = out.rejected
    assert (rejected.reason_code, rejected.detail) == ("authority_grant", kind)
    assert reasons.AUTHORITY_GRANT in reasons.REJECTION_CODES


@pytest.mark.parametrize(("content", "subject", "predicate", "obj"), ORDINARY)
def test_mentions_of_security_tools_and_policies_stay_ordinary_claims(
    content: str, subject: str, predicate: str, obj: str
) -> None:
    assert authority_grant(subject, predicate, obj, content) is None


def test_the_rule_extractor_refuses_grants_and_keeps_tool_mentions() -> None:
    ex = RuleExtractor()
    for content in ("I authorise payments up to $5k.", "The bot has admin access.",
                    "The assistant can push to production.", "I delegate the hiring decisions to you."):
        result = ex.extract(_event(content))
        assert result.claims == () and [r.reason_code for r in result.rejected] == ["authority_grant"], content
    for content, obj in (("My password manager is 1Password.", "1Password"), ("I use Okta for SSO.", "Okta")):
        result = ex.extract(_event(content))
        assert [c.object for c in result.claims] == [obj] and result.rejected == (), content



def _capsule_event(objective: str) -> ConversationEvent:
    return ConversationEvent(event_id="e2", tenant_id="t1", owner_id="alice", scope="personal", role="user",
                             content="picking this up tomorrow", occurred_at=datetime(2026, 3, 1, 12, tzinfo=UTC),
                             task_state={"task_id": "T-9", "objective": objective, "state": "active"})  # fmt: skip


def test_a_task_capsule_becomes_its_claim_beside_the_proposals() -> None:
    out = validate_claims(_capsule_event("renew the passport before the trip"), [])
    [capsule] = out.accepted
    assert (capsule.subject, capsule.predicate, capsule.object) == ("T-9", "task_state", "active")
    assert capsule.claim_text == "task T-9 (active): renew the passport before the trip"
    assert out.rejected == []


def test_a_task_capsule_whose_words_would_grant_authority_is_refused_with_its_task_named() -> None:
    out = validate_claims(_capsule_event("You may deploy to prod without asking me."), [])
    assert out.accepted == []
    [rejected] = out.rejected
    assert (rejected.reason_code, rejected.detail, dict(rejected.claim)) == (
        "authority_grant", "permission", {"task_id": "T-9"},
    )  # fmt: skip
