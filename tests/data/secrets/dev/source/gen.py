#!/usr/bin/env python3
"""Generator for the epistream secrets_dev evaluation set (written blind).

All secrets are fake: random strings from a seeded PRNG, public test card
numbers or Luhn-completed invented numbers, IBANs with computed check digits,
BIP-39 mnemonics derived from fixed fake entropy.
"""
import base64
import json
import random
import string
import struct

R = random.Random(20250611)
UP = string.ascii_uppercase
LO = string.ascii_lowercase
DG = string.digits
AN = UP + LO + DG
URLSAFE = AN + "-_"
HEX = "0123456789abcdef"
B32 = UP + "234567"


def rs(n, a=AN):
    return "".join(R.choice(a) for _ in range(n))


def rb(n):
    return bytes(R.getrandbits(8) for _ in range(n))


def b64(data):
    return base64.b64encode(data).decode()


def b64u(data):
    return base64.urlsafe_b64encode(data).decode().rstrip("=")


def fullwidth(s):
    return "".join(chr(ord(c) + 0xFEE0) if "!" <= c <= "~" else c for c in s)


def luhn_ok(num):
    d = [int(c) for c in num if c.isdigit()]
    tot = 0
    for i, x in enumerate(reversed(d)):
        if i % 2 == 1:
            x *= 2
            if x > 9:
                x -= 9
        tot += x
    return tot % 10 == 0


def luhn_complete(prefix):
    for c in "0123456789":
        if luhn_ok(prefix + c):
            return prefix + c
    raise ValueError


def iban_digits(s):
    return "".join(str(int(c, 36)) for c in s)


def make_iban(cc, bban):
    chk = 98 - int(iban_digits(bban + cc + "00")) % 97
    return f"{cc}{chk:02d}{bban}"


def spaced4(s):
    return " ".join(s[i:i + 4] for i in range(0, len(s), 4))


def fr_rib_key(bank, branch, account):
    return 97 - ((89 * int(bank) + 15 * int(branch) + 3 * int(account)) % 97)


def es_dc(bank, branch, account):
    w = [1, 2, 4, 8, 5, 10, 9, 7, 3, 6]

    def one(ten):
        v = 11 - sum(int(a) * b for a, b in zip(ten, w)) % 11
        return {11: 0, 10: 1}.get(v, v)

    return f"{one('00' + bank + branch)}{one(account)}"


def wrap(s, n):
    return [s[i:i + n] for i in range(0, len(s), n)]


# ---------------------------------------------------------------- events
OWNERS = ["u-lena", "u-marco", "u-priya", "u-tomas", "u-aiko"]
OFFSETS = ["+02:00", "+01:00", "+00:00", "-05:00", "-08:00", "+09:00", "+05:30", "-03:00"]
DEV = {
    "aws_key", "github_token", "gitlab_token", "openai_key", "anthropic_key", "slack_token",
    "slack_webhook", "stripe_key", "stripe_webhook", "sendgrid_key", "huggingface_token",
    "npm_token", "jwt", "bearer_header", "basic_auth_header", "url_credentials", "cli_password",
    "env_file", "json_config", "azure_connection_string", "private_key", "google_api_key",
    "generic_high_entropy", "k8s_secret", "discord_token", "twilio_key", "gcp_service_account",
    "docker_auth", "dsn_keyvalue",
}


def ts():
    m = R.randint(1, 12)
    d = R.randint(1, 28)
    return (f"2025-{m:02d}-{d:02d}T{R.randint(0, 23):02d}:{R.randint(0, 59):02d}:"
            f"{R.randint(0, 59):02d}{R.choice(OFFSETS)}")


rows = []
counter = {"leak": 0, "lookalike": 0}


def make_event(eid, family, role, content, owner, scope, speaker, metadata, attachments):
    ev = {
        "event_id": eid,
        "tenant_id": "t-sec",
        "owner_id": owner or R.choice(OWNERS),
        "scope": scope or ("project" if family in DEV else "personal"),
        "conversation_id": "c-" + rs(10, HEX),
        "role": role,
        "content": content,
        "occurred_at": ts(),
    }
    if speaker is not None:
        ev["speaker"] = speaker
    if metadata is not None:
        ev["metadata"] = metadata
    if attachments is not None:
        ev["attachments"] = attachments
    return ev


def leak(family, role, content, secrets, owner=None, scope=None, speaker=None,
         metadata=None, attachments=None):
    counter["leak"] += 1
    eid = f"sd-{counter['leak']:03d}"
    ev = make_event(eid, family, role, content, owner, scope, speaker, metadata, attachments)
    seen = []
    for s in secrets:
        if s not in seen:
            seen.append(s)
    rows.append({"id": eid, "family": family, "kind": "leak", "event": ev, "secrets": seen})


def look(family, role, content, keep, owner=None, scope="personal", speaker=None, metadata=None):
    counter["lookalike"] += 1
    eid = f"sd-L{counter['lookalike']:02d}"
    ev = make_event(eid, family, role, content, owner, scope, speaker, metadata, None)
    rows.append({"id": eid, "family": family, "kind": "lookalike", "event": ev, "keep": keep})


# ================================================================ LEAKS
# ---- prose_password_en
leak("prose_password_en", "user",
     "ok so the password for my home router is Tr0ut!Lake#88 — writing it here so I don't forget lol",
     ["Tr0ut!Lake#88"], owner="u-lena")
leak("prose_password_en", "user",
     "Quick note to self: my wifi pw is sunflower-attic-2291. network name is LenaNet_5G, the guest one has no password",
     ["sunflower-attic-2291"], owner="u-lena")
leak("prose_password_en", "participant",
     "new laptop for the intern is set up. login is jonas, pass: Qw!x9vLp2#Rt  — pls dont forward this",
     ["Qw!x9vLp2#Rt"], owner="u-marco", scope="project", speaker="Marco Ruiz")
leak("prose_password_en", "assistant",
     "Got it, I'll remember that your streaming account uses the email lena.k@example.com. About the "
     "password you pasted (Mango$Tree71): I'd suggest keeping that in your password manager rather than here.",
     ["Mango$Tree71"], owner="u-lena")
leak("prose_password_en", "user",
     "fyi I changed my PASSWORD to purpleMonkeyDishwasher9 yesterday. hope i remember it this time haha",
     ["purpleMonkeyDishwasher9"], owner="u-tomas")
leak("prose_password_en", "system",
     "Support context: the customer's temporary portal password is TempPass-4417-xq (expires Friday). "
     "Verify identity before discussing the account.",
     ["TempPass-4417-xq"], owner="u-priya", scope="project")

# ---- prose_password_de
leak("prose_password_de", "user",
     "Das Passwort für den Router ist Schnecke#Blau42, falls du nochmal fragst 🙂",
     ["Schnecke#Blau42"], owner="u-lena")
leak("prose_password_de", "participant",
     "Hey, unser gemeinsames Streaming-Konto: Benutzer ist familie.berg, das Kennwort lautet „Zugspitze_2962!“ – bitte nicht weitergeben.",
     ["Zugspitze_2962!"], owner="u-lena", speaker="Jana Berg")
leak("prose_password_de", "assistant",
     "Alles klar, ich merke mir, dass dein Router eine FritzBox 7590 ist. Dein WLAN-Passwort (Hafenkran88?) "
     "speichere ich nicht – teile es besser nicht im Chat.",
     ["Hafenkran88?"], owner="u-lena")
leak("prose_password_de", "user",
     "kurz notiert, mein passwort fürs Firmen-VPN: Lxq7-Tannenbaum-03 (ja ich weiß, sollte ich nicht schreiben)",
     ["Lxq7-Tannenbaum-03"], owner="u-tomas", scope="project")

# ---- prose_password_fr
leak("prose_password_fr", "user",
     "le mot de passe est Croissant!Bleu77 pour la box internet, tu peux le noter ?",
     ["Croissant!Bleu77"], owner="u-marco")
leak("prose_password_fr", "participant",
     "Salut ! Pour l'ordi de la salle de réunion, mdp : Lavande-Provence-19",
     ["Lavande-Provence-19"], owner="u-marco", scope="project", speaker="Camille Durand")
leak("prose_password_fr", "system",
     "Rappel interne : le mot de passe administrateur du NAS est Fromage#Comte2024. Ne pas le communiquer aux clients.",
     ["Fromage#Comte2024"], owner="u-priya", scope="project")

# ---- prose_password_es
leak("prose_password_es", "user",
     "la contraseña es Girasol_Rojo_58 (la del wifi de casa, por si se me olvida)",
     ["Girasol_Rojo_58"], owner="u-tomas")
leak("prose_password_es", "participant",
     "oye, mi clave del banco es Tortuga.9921 jaja no se la digas a nadie",
     ["Tortuga.9921"], owner="u-tomas", speaker="Diego Fernández")
leak("prose_password_es", "assistant",
     "Entendido. Tu contraseña del correo, Paella&Mar2025, no la voy a guardar; te recomiendo cambiarla cuanto antes.",
     ["Paella&Mar2025"], owner="u-tomas")

# ---- pin_code
leak("pin_code", "user", "my locker code is 2468-1357, it's the gym on 5th street", ["2468-1357"], owner="u-aiko")
leak("pin_code", "user", "Bank card PIN is 4821 btw in case I forget again lol", ["4821"], owner="u-lena")
leak("pin_code", "participant", "door code 7731# for the back entrance, the front keypad is broken again",
     ["7731"], owner="u-priya", scope="project", speaker="Priya Nair")
leak("pin_code", "system",
     "Facilities note: the alarm panel disarm code for the Leipzig office is 58302, then press OFF.",
     ["58302"], owner="u-priya", scope="project")
leak("pin_code", "assistant",
     "Your parcel locker is at the Hauptbahnhof station. I won't keep the pickup PIN 662913 you sent, "
     "but I'll remember the locker location.",
     ["662913"], owner="u-marco")
leak("pin_code", "user", "new SIM arrived. PUK: 83920174, PIN 0612 — gonna change it later",
     ["83920174", "0612"], owner="u-aiko")

# ---- passphrase
leak("passphrase", "user", "the vault passphrase: lemon river stone 42",
     ["lemon river stone 42", "river stone"], owner="u-lena")
leak("passphrase", "tool",
     "$ cat ~/backup/NOTES.md\n# restic\nrepo: s3:s3.eu-central-1.amazonaws.com/lena-backup\n"
     "passphrase: copper kettle whistling dawn\nschedule: daily 03:00",
     ["copper kettle whistling dawn", "kettle whistling", "whistling dawn"], owner="u-lena",
     metadata={"tool": "bash", "exit_code": "0"})
leak("passphrase", "participant",
     "ok the KeePass master passphrase is 'Seven purple walruses dance at midnight!' — don't laugh, it's memorable",
     ["Seven purple walruses dance at midnight!", "purple walruses", "walruses dance", "dance at midnight"],
     owner="u-tomas", speaker="Tomás Ortega")

# ---- otp_2fa
codes = ["8311-4420", "5592-0183", "7740-2261", "1098-3357", "6624-9910"]
leak("otp_2fa", "user",
     "2fa backup codes for my google account, keep them for me pls: " + " ".join(codes),
     [" ".join(codes)] + codes, owner="u-aiko")
leak("otp_2fa", "tool",
     "[SMS 14:02] From: MYBANK\nYour one-time code is 493027. Do not share it with anyone. Valid for 5 minutes.",
     ["493027"], owner="u-marco", scope="personal", metadata={"tool": "sms_inbox"})
rc = ["a8f3c-1e9d2", "77b0e-c4a51", "3d9fa-0b6e8", "c01de-99f3a"]
leak("otp_2fa", "user",
     "github recovery codes:\n " + "\n ".join(rc) + "\n(I used the first one already)",
     rc, owner="u-priya")
leak("otp_2fa", "assistant",
     "The verification code you pasted (719 305) expires in a few minutes anyway, so I won't keep it. Did the login work?",
     ["719 305"], owner="u-tomas")
totp = " ".join(wrap(rs(32, B32), 4))
leak("otp_2fa", "system",
     f"Onboarding: the authenticator setup key for the shared ops@ mailbox is {totp} (TOTP, 30s).",
     [totp], owner="u-priya", scope="project")

# ---- seed_phrase (valid BIP-39 mnemonics from fixed fake entropy)
S1 = "ozone repair spend idea strategy tired maximum tunnel duck total elbow cover"
S2 = "divide mandate dance tongue pact mercy neither impact repeat crazy orange rude"
S3 = ("session throw impact sure month replace tank paddle space robot host acquire spin envelope "
      "ladder churn slush hour smoke fly point jungle couple reunion")
S4 = "tuna myself enforce accident major bounce agent era embody dawn fiber come"
S5 = ("search decline science syrup soon hurt pave arrange attract fantasy cruise abuse skull wrong "
      "explain rapid thunder dinner shadow caution silly pair brother salad")


def halves(p, sep=" "):
    w = p.split(" ")
    h = len(w) // 2
    return [sep.join(w[:h]), sep.join(w[h:])]


leak("seed_phrase", "user",
     f"my metamask seed is {S1} — keep it safe for me, I keep losing the paper",
     [S1] + halves(S1), owner="u-marco")
w3 = S3.split()
lines3 = [f"{i + 1}. {w}" for i, w in enumerate(w3)]
block3 = "\n".join(lines3)
leak("seed_phrase", "user",
     f"recovery sheet for the ledger, typing it here before I shred it:\n{block3}\nthat's all 24",
     [block3, "\n".join(lines3[:12]), "\n".join(lines3[12:])], owner="u-lena")
leak("seed_phrase", "tool",
     f"$ cat ~/Documents/wallet-backup.txt\nwallet: hot-wallet-2\nmnemonic: {S2}\nderivation_path: m/44'/60'/0'/0/0",
     [S2] + halves(S2), owner="u-tomas", metadata={"tool": "bash"})
csv5 = ", ".join(S5.split())
leak("seed_phrase", "participant",
     f"dad asked me to store his phrase somewhere safe: {csv5}. is this ok to keep here?",
     [csv5] + halves(S5, ", "), owner="u-aiko", speaker="Kenji Mori")
leak("seed_phrase", "assistant",
     f"You shared a recovery phrase that starts with \"{S4}\". I won't store it — anyone with those 12 words "
     "can empty the wallet. Please move the funds to a new wallet.",
     [S4] + halves(S4), owner="u-marco")

# ---- credit_card
inv1 = luhn_complete("453201" + rs(9, DG))
inv1s = spaced4(inv1)
inv2 = luhn_complete("2221" + rs(11, DG))  # Mastercard 2-series
inv2d = "-".join(wrap(inv2, 4))
leak("credit_card", "user", "card for the hotel booking: 4111 1111 1111 1111 exp 09/27, name on card L. Kovač",
     ["4111 1111 1111 1111"], owner="u-lena")
leak("credit_card", "user",
     "5555-5555-5555-4444 is my work mastercard, expiry 03/28 — use that for the conference fee",
     ["5555-5555-5555-4444"], owner="u-marco", scope="project")
leak("credit_card", "tool",
     json.dumps({"event": "charge.failed", "card_number": "4012888888881881", "exp": "11/26",
                 "amount": 4999, "currency": "EUR", "decline_code": "insufficient_funds"}),
     ["4012888888881881"], owner="u-priya", scope="project", metadata={"tool": "payments_log"})
leak("credit_card", "participant", "use my amex for the team dinner: 3782 822463 10005, I'll expense it",
     ["3782 822463 10005"], owner="u-aiko", scope="project", speaker="Aiko Tanaka")
leak("credit_card", "assistant",
     "I've added the reminder to renew the subscription. Note: I won't keep the card number 6011111111111117 "
     "you sent; you can enter it directly on the payment page.",
     ["6011111111111117"], owner="u-tomas")
leak("credit_card", "user", f"new card came in the mail {inv1s} valid thru 12/29, the old one is cancelled",
     [inv1s], owner="u-aiko")
leak("credit_card", "system",
     f"Billing record (internal): customer card on file {inv2d}, exp 07/27. Do not read it back to the user.",
     [inv2d], owner="u-priya", scope="project")
leak("credit_card", "user", "pls remember my visa 4242424242424242 for online orders, exp 05/30",
     ["4242424242424242"], owner="u-tomas")

# ---- iban
de = make_iban("DE", "76050101" + rs(10, DG))
fb, fbr, fac = "20041", "01005", rs(11, DG)
fr = make_iban("FR", fb + fbr + fac + f"{fr_rib_key(fb, fbr, fac):02d}")
eb, ebr, eac = "2100", "0418", rs(10, DG)
es = make_iban("ES", eb + ebr + es_dc(eb, ebr, eac) + eac)
gb = make_iban("GB", "NWBK" + "601613" + rs(8, DG))
nl = make_iban("NL", "RABO" + rs(10, DG))
leak("iban", "user", f"meine IBAN ist {spaced4(de)} (Sparkasse), kannst du mir die Miete dahin überweisen?",
     [spaced4(de)], owner="u-lena")
leak("iban", "participant", f"RIB pour le remboursement : {spaced4(fr)}, titulaire C. Durand",
     [spaced4(fr)], owner="u-marco", speaker="Camille Durand")
leak("iban", "tool",
     f"Extracted fields from invoice_2025-03.pdf:\n  supplier: Talleres Martín S.L.\n  iban: {es}\n  total: 1.240,00 EUR",
     [es], owner="u-tomas", scope="project", metadata={"tool": "document_parser"})
leak("iban", "assistant",
     f"Sure — to pay the deposit, transfer £500 to {gb} (reference FLAT-12B). I'd recommend not keeping bank details in chat memory though.",
     [gb], owner="u-aiko")
leak("iban", "system", f"Payout account for vendor Bakker BV: {spaced4(nl)}. Payouts run on the 1st.",
     [spaced4(nl)], owner="u-priya", scope="project")


# ---- aws_key
def akia(p="AKIA"):
    return p + rs(16, B32)


def awssk():
    return rs(40, AN + "/+")


ak1, sk1, ak2, sk2 = akia(), awssk(), akia(), awssk()
leak("aws_key", "tool",
     f"$ cat ~/.aws/credentials\n[default]\naws_access_key_id = {ak1}\naws_secret_access_key = {sk1}\nregion = eu-west-1\n\n"
     f"[staging]\naws_access_key_id = {ak2}\naws_secret_access_key = {sk2}",
     [ak1, sk1, ak2, sk2], owner="u-marco", metadata={"tool": "bash", "cwd": "/home/marco"})
ak3, sk3 = akia("ASIA"), awssk()
st3 = "FwoGZXIvYXdzE" + rs(180, AN + "/+") + "=="
leak("aws_key", "user",
     f"temp creds from sts, they expire in 1h: {ak3}, secret {sk3}, session token {st3}",
     [ak3, sk3, st3], owner="u-marco")
ak4, sk4 = akia(), awssk()
leak("aws_key", "assistant",
     f"Run these before the deploy script:\n\nexport AWS_ACCESS_KEY_ID={ak4}\nexport AWS_SECRET_ACCESS_KEY={sk4}\n\n"
     "Then `make deploy ENV=staging`.",
     [ak4, sk4], owner="u-priya")
ak5, sk5 = akia(), awssk()
leak("aws_key", "participant",
     f"the CI user's key is {ak5} / {sk5} (read-only, s3 only) so no big deal if it leaks right?",
     [ak5, sk5], owner="u-priya", speaker="Marco Ruiz")
ak6, sk6 = akia(), awssk()
leak("aws_key", "system",
     f"Deployment context for this workspace: AWS secret key for staging = {sk6}; access key id {ak6}. Use region eu-central-1.",
     [sk6, ak6], owner="u-tomas")

# ---- github_token
ghp1 = "ghp_" + rs(36)
gho1 = "gho_" + rs(36)
pat1a, pat1b = "11A" + rs(19, UP + DG), rs(59)
pat1 = f"github_pat_{pat1a}_{pat1b}"
ghs1 = "ghs_" + rs(36)
leak("github_token", "user", f"here's my token {ghp1} can you check why the API keeps returning 401??",
     [ghp1], owner="u-lena")
leak("github_token", "tool",
     f"$ git remote -v\norigin\thttps://x-access-token:{gho1}@github.com/acme/payments-api.git (fetch)\n"
     f"origin\thttps://x-access-token:{gho1}@github.com/acme/payments-api.git (push)",
     [gho1], owner="u-marco", metadata={"tool": "bash"})
leak("github_token", "assistant",
     f"I've set up the workflow. The fine-grained token you gave me ({pat1}) is now the repository secret "
     "RELEASE_TOKEN, so you can delete it from this chat.",
     [pat1, pat1a, pat1b], owner="u-priya")
leak("github_token", "participant",
     f"for the release bot just use the app installation token {ghs1}, it's valid for an hour",
     [ghs1], owner="u-priya", speaker="Priya Nair")

# ---- gitlab_token
gl1, gl2, gl3 = ("glpat-" + rs(20, URLSAFE) for _ in range(3))
leak("gitlab_token", "user",
     f"{gl1} is the runner registration token for the new group, put it in the terraform vars",
     [gl1], owner="u-tomas")
leak("gitlab_token", "tool",
     f"$ cat .gitlab-ci.local.yml\nvariables:\n  GITLAB_TOKEN: \"{gl2}\"\n  DEPLOY_ENV: staging\n  CI_DEBUG_TRACE: \"false\"",
     [gl2], owner="u-tomas", metadata={"tool": "bash"})
leak("gitlab_token", "system",
     f"Tooling: the bot account's personal access token is {gl3}; scopes api, read_repository.",
     [gl3], owner="u-marco")


# ---- openai_key
def sk_proj():
    return "sk-proj-" + rs(74, URLSAFE) + "T3BlbkFJ" + rs(74, URLSAFE)


def sk_old():
    return "sk-" + rs(20) + "T3BlbkFJ" + rs(20)


op1, op2, op3, op4 = sk_proj(), sk_old(), sk_proj(), sk_old()
leak("openai_key", "user", f"OPENAI_API_KEY is {op1} — wire it into the summarizer pls", [op1], owner="u-aiko")
leak("openai_key", "tool",
     f"$ python check_keys.py\nloaded config from settings.toml\n  provider = openai\n  api_key  = {op2}\n"
     "  model    = gpt-4o-mini\nOK: 3 providers configured",
     [op2], owner="u-aiko", metadata={"tool": "bash"})
leak("openai_key", "assistant",
     f"In `config.py`, replace the placeholder with your key:\n\n```python\nclient = OpenAI(api_key=\"{op3}\")\n```\n\n"
     "Better: read it from an environment variable instead.",
     [op3], owner="u-lena")
leak("openai_key", "participant", f"testing w/ my personal key for now: {op4} will rotate after the demo",
     [op4], owner="u-aiko", speaker="Tomás Ortega")


# ---- anthropic_key
def sk_ant():
    return "sk-ant-api03-" + rs(93, URLSAFE) + "AA"


an1, an2, an3 = sk_ant(), sk_ant(), sk_ant()
leak("anthropic_key", "user", f"can you test with this: {an1}\nit's the team key, rate limits are low",
     [an1], owner="u-priya")
leak("anthropic_key", "tool",
     f"$ env | grep -i -e key -e layout\nANTHROPIC_API_KEY={an2}\nKEYBOARD_LAYOUT=de\nXKB_DEFAULT_LAYOUT=de",
     [an2], owner="u-priya", metadata={"tool": "bash"})
leak("anthropic_key", "system",
     f"You are the support assistant for Acme. Internal note (do not reveal): the escalation backend uses key {an3}.",
     [an3], owner="u-marco")

# ---- slack_token
xb1 = f"xoxb-{rs(12, DG)}-{rs(13, DG)}-{rs(24)}"
xb2 = f"xoxb-{rs(12, DG)}-{rs(13, DG)}-{rs(24)}"
xp1 = f"xoxp-{rs(12, DG)}-{rs(12, DG)}-{rs(13, DG)}-{rs(32, HEX)}"
xb3 = f"xoxb-{rs(11, DG)}-{rs(13, DG)}-{rs(24)}"
leak("slack_token", "tool",
     "$ kubectl -n chatops get configmap slackbot -o jsonpath='{.data}'\n"
     + json.dumps({"SLACK_BOT_TOKEN": xb1, "SLACK_CHANNEL": "#deploys"}),
     [xb1], owner="u-marco", metadata={"tool": "bash"})
leak("slack_token", "user",
     f"the bot token is {xb2}, and the user token (for the archive script) is {xp1}",
     [xb2, xp1], owner="u-marco")
leak("slack_token", "assistant",
     f"Your Slack app is installed. For reference, the bot token is {xb3}; add it as SLACK_BOT_TOKEN in your CI secrets.",
     [xb3], owner="u-tomas")


# ---- slack_webhook
def slack_wh():
    t = rs(24)
    return f"https://hooks.slack.com/services/T{rs(8, UP + DG)}/B{rs(10, UP + DG)}/{t}", t


wh1, wt1 = slack_wh()
wh2, wt2 = slack_wh()
wh3, wt3 = slack_wh()
leak("slack_webhook", "user", f"post alerts to {wh1} pls (that's #oncall)", [wh1, wt1], owner="u-priya")
leak("slack_webhook", "tool",
     f"$ grep -rn hooks.slack.com infra/\ninfra/alertmanager.yml:14:    api_url: '{wh2}'",
     [wh2, wt2], owner="u-priya", metadata={"tool": "bash"})
leak("slack_webhook", "participant",
     f"Webhook for the marketing channel → {wh3}\nanyone can post with it so don't paste it in public channels lol",
     [wh3, wt3], owner="u-aiko", speaker="Aiko Tanaka")

# ---- stripe_key
skl1, skl2 = "sk_live_" + rs(99), "sk_live_" + rs(24)
rkl1, rkl2 = "rk_live_" + rs(99), "rk_live_" + rs(24)
leak("stripe_key", "user", f"prod stripe key: {skl1} — the test one is in 1Password", [skl1], owner="u-marco")
leak("stripe_key", "tool",
     f"$ heroku config -a acme-shop\n=== acme-shop Config Vars\nNODE_ENV:              production\n"
     f"STRIPE_SECRET_KEY:     {skl2}\nSTRIPE_RESTRICTED_KEY: {rkl1}\nWEB_CONCURRENCY:       2",
     [skl2, rkl1], owner="u-marco", metadata={"tool": "bash"})
leak("stripe_key", "assistant",
     f"I'll use the restricted key {rkl2} for the reporting job, since it only has read access to charges.",
     [rkl2], owner="u-lena")

# ---- stripe_webhook
ws1, ws2 = "whsec_" + rs(32), "whsec_" + rs(32)
leak("stripe_webhook", "system",
     f"Webhook verification: the endpoint signing secret is {ws1}. Reject events whose signature does not match.",
     [ws1], owner="u-marco")
leak("stripe_webhook", "user", f"STRIPE_WEBHOOK_SECRET={ws2} <- that's the one from the dashboard, right?",
     [ws2], owner="u-lena")

# ---- sendgrid_key
sga, sgb = rs(22, URLSAFE), rs(43, URLSAFE)
sgc, sgd = rs(22, URLSAFE), rs(43, URLSAFE)
leak("sendgrid_key", "tool",
     f"$ cat config/mail.yml\nprovider: sendgrid\nfrom: noreply@acme.io\napi_key: SG.{sga}.{sgb}",
     [f"SG.{sga}.{sgb}", sga, sgb], owner="u-tomas", metadata={"tool": "bash"})
leak("sendgrid_key", "participant",
     f"the newsletter tool needs SG.{sgc}.{sgd} as the key, I created it with mail-send only",
     [f"SG.{sgc}.{sgd}", sgc, sgd], owner="u-tomas", speaker="Jana Berg")

# ---- huggingface_token
hf1, hf2 = "hf_" + rs(34, UP + LO), "hf_" + rs(34, UP + LO)
leak("huggingface_token", "user", f"hf token for the private model repo: {hf1}", [hf1], owner="u-aiko")
leak("huggingface_token", "assistant",
     f"To download the gated model, log in first:\n\nhuggingface-cli login --token {hf2}\n\nAfter that `from_pretrained` will work.",
     [hf2], owner="u-aiko")

# ---- npm_token
np1, np2, np3 = ("npm_" + rs(36) for _ in range(3))
leak("npm_token", "tool",
     f"$ cat ~/.npmrc\n//registry.npmjs.org/:_authToken={np1}\n@acme:registry=https://npm.acme.io/\nalways-auth=true",
     [np1], owner="u-lena", metadata={"tool": "bash"})
leak("npm_token", "user",
     f"publishing is broken, I set NPM_TOKEN to {np2} in the repo settings but the action still fails",
     [np2], owner="u-lena")
leak("npm_token", "system",
     f"Release pipeline context: publish with automation token {np3}; never use 2FA-protected tokens here.",
     [np3], owner="u-tomas")


# ---- jwt
def jwt(payload):
    h = b64u(json.dumps({"alg": "HS256", "typ": "JWT"}, separators=(",", ":")).encode())
    p = b64u(json.dumps(payload, separators=(",", ":")).encode())
    s = b64u(rb(32))
    return f"{h}.{p}.{s}", s


j1, j1s = jwt({"sub": "u-lena", "name": "Lena K", "iat": 1741600000, "exp": 1741600300})
j2, j2s = jwt({"iss": "https://auth.acme.io", "sub": "svc-reporting", "scope": "reports:read", "exp": 1747000000})
j3, j3s = jwt({"sub": "kenji", "sid": rs(16, HEX), "exp": 1750000000})
leak("jwt", "user", f"this is the session token from the browser: {j1} — why does it expire after 5 min?",
     [j1, j1s], owner="u-lena")
leak("jwt", "tool",
     "$ curl -s -X POST https://auth.acme.io/oauth/token -d grant_type=client_credentials\n"
     + json.dumps({"access_token": j2, "token_type": "Bearer", "expires_in": 3600}),
     [j2, j2s], owner="u-priya", metadata={"tool": "bash"})
leak("jwt", "participant", f"debugging the refresh flow, here's mine {j3} see the exp claim?",
     [j3, j3s], owner="u-aiko", speaker="Kenji Mori")

# ---- bearer_header
bt1, bt2, bt3, bt4 = rs(40, URLSAFE), rs(48), "at_" + rs(40), rs(32, HEX)
leak("bearer_header", "user",
     f"getting 403 with this request, any idea?\n\ncurl https://api.acme.io/v2/invoices -H 'Authorization: Bearer {bt1}'",
     [bt1], owner="u-marco")
leak("bearer_header", "tool",
     f"> GET /v1/me HTTP/1.1\n> Host: api.partner.example\n> User-Agent: curl/8.5.0\n> authorization: bearer {bt2}\n>\n< HTTP/1.1 200 OK",
     [bt2], owner="u-marco", metadata={"tool": "bash"})
leak("bearer_header", "assistant",
     f"Here is the request with your token filled in:\n\nGET /api/orders HTTP/1.1\nAuthorization: Bearer {bt3}\nAccept: application/json",
     [bt3], owner="u-tomas")
leak("bearer_header", "participant",
     f"header for the staging api is `Authorization: BEARER {bt4}` (casing doesn't matter apparently)",
     [bt4], owner="u-priya", speaker="Priya Nair")

# ---- basic_auth_header
ba1 = b64(b"svc-backup:Gr4nite!Falls")
ba2 = b64(b"probe:8mT#v2Lq!x")
ba3 = b64(b"erp-integration:Nordwind-4471!")
leak("basic_auth_header", "tool",
     f"$ curl -v https://nexus.acme.io/repository/raw/\n> GET /repository/raw/ HTTP/2\n> authorization: Basic {ba1}\n< HTTP/2 200",
     [ba1], owner="u-tomas", metadata={"tool": "bash"})
leak("basic_auth_header", "user",
     f"the monitoring probe sends Authorization: Basic {ba2} — is that safe?", [ba2], owner="u-priya")
leak("basic_auth_header", "system",
     f"Integration config: call the legacy ERP with header 'Authorization: Basic {ba3}'.", [ba3], owner="u-marco")

# ---- url_credentials
u1 = "postgres://app:Wr0ngHorse!@db-staging.internal:5432/app"
leak("url_credentials", "user", f"DATABASE_URL for staging is {u1} can you check the migration?",
     [u1, "Wr0ngHorse!"], owner="u-lena")
u2 = "redis://:Xk29vLr77pQm@cache.internal:6379/0"
leak("url_credentials", "tool",
     f"$ docker inspect cache | grep -i redis\n            \"REDIS_URL={u2}\",",
     [u2, "Xk29vLr77pQm"], owner="u-marco", metadata={"tool": "bash"})
u3 = "https://lena:Blue-Falcon-1987@git.acme.io/tools/scripts.git"
leak("url_credentials", "assistant",
     f"Clone it with: git clone {u3} — though putting the password in the URL will save it in .git/config.",
     [u3, "Blue-Falcon-1987"], owner="u-lena")
u4 = "mongodb+srv://reporting:r3p0rt1ng-S3cr3t@cluster0.ab12c.mongodb.net/analytics"
leak("url_credentials", "participant", f"mongo is at {u4}", [u4, "r3p0rt1ng-S3cr3t"], owner="u-aiko",
     speaker="Aiko Tanaka")
u5 = "amqp://orders:Q9!kzTr4#ow@mq.internal:5672/%2F"
leak("url_credentials", "system", f"Broker: {u5} (default vhost).", [u5, "Q9!kzTr4#ow"], owner="u-tomas")

# ---- cli_password
leak("cli_password", "user",
     "curl -u admin:R0uter!Adm1n http://192.168.1.1/api/status returns 401, what am I doing wrong?",
     ["admin:R0uter!Adm1n", "R0uter!Adm1n"], owner="u-lena")
leak("cli_password", "tool",
     "$ history | tail -4\n  501  cd ~/projects/shop\n  502  mysql -u root -pSh0pR00t2025 shop_db < dump.sql\n"
     "  503  git status\n  504  history | tail -4",
     ["Sh0pR00t2025"], owner="u-tomas", metadata={"tool": "bash"})
leak("cli_password", "assistant",
     "You can automate the copy with:\n\nsshpass -p 'd3pl0y-Pa55' scp backup.tar.gz deploy@10.0.4.12:/srv/backups/\n\n"
     "but key-based auth would be safer.",
     ["d3pl0y-Pa55"], owner="u-marco")
leak("cli_password", "participant",
     "PGPASSWORD=Wareh0use#77 psql -h db.internal -U analytics -d warehouse -c 'select 1' works for me",
     ["Wareh0use#77"], owner="u-priya", speaker="Marco Ruiz")
leak("cli_password", "user",
     "docker login registry.acme.io -u ci-bot -p Cib0t-Reg!stry keeps failing with 'unauthorized' ugh",
     ["Cib0t-Reg!stry"], owner="u-aiko")

# ---- env_file
e_pw, e_sk = rs(24), rs(50, AN + "!@#%^*-_=+")
leak("env_file", "tool",
     f"$ cat .env\nAPP_ENV=production\nAPP_DEBUG=false\nAPP_DB_HOST=db.internal\nAPP_DB_USER=app\n"
     f"APP_DB_PASSWORD={e_pw}\nSECRET_KEY={e_sk}\nMAIL_FROM=noreply@acme.io",
     [e_pw, e_sk], owner="u-lena", metadata={"tool": "bash", "cwd": "/srv/app"})
e_dj, e_db = rs(50, AN + "!@#%^*(-_=+)"), rs(20)
leak("env_file", "tool",
     f"$ env\nHOME=/home/deploy\nLANG=en_US.UTF-8\nPATH=/usr/local/bin:/usr/bin:/bin\nDJANGO_SECRET_KEY={e_dj}\n"
     f"DB_PASSWORD={e_db}\nSENTRY_ENVIRONMENT=prod\nTERM=xterm-256color",
     [e_dj, e_db], owner="u-priya", metadata={"tool": "bash"})
e_js, e_mp = rs(64, HEX), "M0ng0-" + rs(10)
leak("env_file", "user",
     f"my .env looks like this, is the format right?\n\nPORT=3000\nJWT_SECRET={e_js}\nMONGO_PASS={e_mp}\n",
     [e_js, e_mp], owner="u-aiko")
e_rp, e_ss = rs(28), rs(32, URLSAFE)
leak("env_file", "assistant",
     f"Your `.env.example` should contain placeholders only. Right now it has real values — e.g. "
     f"`REDIS_PASSWORD={e_rp}` and `SESSION_SECRET={e_ss}` — replace them with `changeme`.",
     [e_rp, e_ss], owner="u-marco")

# ---- json_config
jc_p, jc_k = rs(18, AN + "!#$%"), rs(32, HEX)
leak("json_config", "tool",
     "$ cat config/production.json\n" + json.dumps(
         {"db": {"host": "db.internal", "user": "svc_orders", "password": jc_p}, "api_key": jc_k,
          "log_level": "info"}, indent=2),
     [jc_p, jc_k], owner="u-tomas", metadata={"tool": "bash"})
jc_p2 = "Ma1ler!" + rs(8)
leak("json_config", "user",
     "is this config ok? " + json.dumps({"service": "mailer", "smtp_user": "mailer@acme.io",
                                          "smtp_password": jc_p2, "port": 587}),
     [jc_p2], owner="u-lena")
jc_cs = rs(40, URLSAFE)
leak("json_config", "tool",
     json.dumps({"path": "secrets/partner.json",
                 "content": {"partner": "logistix", "client_id": "lgx-client-0192", "client_secret": jc_cs}}),
     [jc_cs], owner="u-priya", metadata={"tool": "read_file"})
jc_k2 = rs(32, HEX)
leak("json_config", "participant",
     f"here's the snippet from my settings.json → \"apiKey\": \"{jc_k2}\", \"endpoint\": \"https://api.weatherly.example/v3\"",
     [jc_k2], owner="u-tomas", speaker="Jana Berg")

# ---- azure_connection_string
az1 = b64(rb(64))
azc1 = f"DefaultEndpointsProtocol=https;AccountName=acmelogs;AccountKey={az1};EndpointSuffix=core.windows.net"
leak("azure_connection_string", "tool",
     f"$ az storage account show-connection-string -n acmelogs -g rg-logs -o tsv\n{azc1}",
     [azc1, az1], owner="u-aiko", metadata={"tool": "bash"})
sak = b64(rb(32))
sbc = ("Endpoint=sb://acme-orders.servicebus.windows.net/;SharedAccessKeyName=RootManageSharedAccessKey;"
       f"SharedAccessKey={sak}")
leak("azure_connection_string", "user",
     f"the function app can't connect, connection string is {sbc}", [sbc, sak], owner="u-aiko")
az2 = b64(rb(64))
azc2 = f"DefaultEndpointsProtocol=https;AccountName=acmeuploads;AccountKey={az2};EndpointSuffix=core.windows.net"
leak("azure_connection_string", "system", f"Storage for uploads: {azc2}", [azc2, az2], owner="u-marco")


# ---- private_key
def sshstr(b):
    return struct.pack(">I", len(b)) + b


def openssh_ed25519(comment=b"marco@build01"):
    pub = rb(32)
    priv = rb(32)
    pubblob = sshstr(b"ssh-ed25519") + sshstr(pub)
    chk = rb(4)
    body = chk + chk + sshstr(b"ssh-ed25519") + sshstr(pub) + sshstr(priv + pub) + sshstr(comment)
    pad = 1
    while len(body) % 8:
        body += bytes([pad])
        pad += 1
    blob = (b"openssh-key-v1\x00" + sshstr(b"none") + sshstr(b"none") + sshstr(b"") + struct.pack(">I", 1)
            + sshstr(pubblob) + sshstr(body))
    lines = wrap(b64(blob), 70)
    return lines


def rsa_lines():
    der = b"\x30\x82\x04\xa4\x02\x01\x00\x02\x82\x01\x01\x00" + rb(1180)
    return wrap(b64(der), 64)


def ec_lines():
    der = (b"\x30\x77\x02\x01\x01\x04\x20" + rb(32) + b"\xa0\x0a\x06\x08\x2a\x86\x48\xce\x3d\x03\x01\x07"
           + b"\xa1\x44\x03\x42\x00\x04" + rb(64))
    return wrap(b64(der), 64)


def pem(kind, lines):
    return f"-----BEGIN {kind}-----\n" + "\n".join(lines) + f"\n-----END {kind}-----"


def body_parts(lines, skip_first=False):
    out = []
    for i, ln in enumerate(lines):
        if skip_first and i == 0:
            continue
        if len(ln) >= 16:
            out.append(ln)
    return out


osl = openssh_ed25519()
osp = pem("OPENSSH PRIVATE KEY", osl)
leak("private_key", "tool", f"$ cat ~/.ssh/id_ed25519\n{osp}",
     [osp, "\n".join(osl[1:])] + body_parts(osl, skip_first=True), owner="u-marco", metadata={"tool": "bash"})
rl = rsa_lines()
rp = pem("RSA PRIVATE KEY", rl)
leak("private_key", "user",
     f"is this the right format for the deploy key?\n{rp}\nthe server keeps saying invalid format",
     [rp, "\n".join(rl)] + body_parts(rl), owner="u-tomas")
el = ec_lines()
ep = pem("EC PRIVATE KEY", el)
leak("private_key", "assistant",
     f"Here's the key in the format the CI variable expects (keep the line breaks):\n\n{ep}\n\nPaste it into SIGNING_KEY as a masked variable.",
     [ep, "\n".join(el)] + body_parts(el), owner="u-priya")
rl2 = rsa_lines()
leak("private_key", "participant",
     "pasting the key body without the header lines since slack mangles them:\n" + "\n".join(rl2)
     + "\nadd the BEGIN/END lines back yourself",
     ["\n".join(rl2)] + body_parts(rl2), owner="u-marco", speaker="Tomás Ortega")

# ---- google_api_key
g1, g2, g3 = ("AIza" + rs(35, URLSAFE) for _ in range(3))
leak("google_api_key", "user", f"maps embed not loading, key is {g1}. restricted to *.acme.io i think",
     [g1], owner="u-lena")
leak("google_api_key", "tool",
     f"$ grep -rn AIza src/\nsrc/maps/config.ts:4:export const MAPS_KEY = \"{g2}\";",
     [g2], owner="u-lena", metadata={"tool": "bash"})
leak("google_api_key", "assistant",
     f"Add this to your `index.html`:\n\n<script src=\"https://maps.googleapis.com/maps/api/js?key={g3}&callback=initMap\"></script>",
     [g3], owner="u-aiko")

# ---- generic_high_entropy
h1, h2, h3, h4 = rs(32), rs(40, HEX), rs(36, URLSAFE), b64(rb(32))
leak("generic_high_entropy", "user",
     f"the webhook secret for the partner integration is {h1}, they want it in the X-Signature header",
     [h1], owner="u-priya")
leak("generic_high_entropy", "participant", f"token for the internal metrics API: {h2} (scoped to read)",
     [h2], owner="u-tomas", speaker="Kenji Mori")
leak("generic_high_entropy", "system", f"Service credential for the ledger sync. Signing key: {h3}",
     [h3], owner="u-priya")
leak("generic_high_entropy", "tool",
     f"$ vault kv get -field=value secret/billing/encryption-key\n{h4}", [h4], owner="u-tomas",
     metadata={"tool": "bash"})

# ---- obfuscated
ob_tail = rs(60, URLSAFE)
ob1 = f"sk-\u200bproj-{ob_tail}"
leak("obfuscated", "user",
     f"lol my key, with a weird char so the filter doesnt catch it: {ob1}",
     [ob1, ob_tail], owner="u-aiko")
ob2_raw = "ghp_" + rs(36)
ob2 = fullwidth(ob2_raw)
leak("obfuscated", "user", f"copy this exactly (full-width so it doesn't autolink): {ob2}",
     [ob2, ob2[4:]], owner="u-lena")
ob3a, ob3b = rs(14), rs(14)
ob3 = f"sk_live_{ob3a} {ob3b}"
leak("obfuscated", "participant",
     f"the stripe key is {ob3} (remove the space, slack wraps it otherwise)",
     [ob3, f"sk_live_{ob3a}", ob3a, ob3b], owner="u-marco", speaker="Marco Ruiz")
leak("obfuscated", "user", "router admin pw, spaced out so nobody can grep it: Q 7 r ! m 2 x P 9 k",
     ["Q 7 r ! m 2 x P 9 k"], owner="u-tomas")
ob5_raw = akia()
ob5 = "-".join(wrap(ob5_raw, 4))
ob5s = awssk()
leak("obfuscated", "assistant",
     f"I've written the access key the way you sent it, {ob5} — remove the dashes when you enter it, "
     f"together with the secret {ob5s[:20]} {ob5s[20:]} (again without the space).",
     [ob5, f"{ob5s[:20]} {ob5s[20:]}", ob5s[:20], ob5s[20:]], owner="u-priya")
ob6 = "Hunter\u200d2-Tango!"
leak("obfuscated", "system",
     f"Legacy kiosk account: user kiosk, password {ob6} (contains an invisible joiner, type it without).",
     [ob6, "2-Tango!"], owner="u-marco")

# ---- creds_pair
leak("creds_pair", "user", "staging box creds: deploy / Hunter2-Bravo (ssh on port 2222)",
     ["Hunter2-Bravo"], owner="u-marco", scope="project")
leak("creds_pair", "participant", "login for the printer admin page → user: admin, pass: Pr1nt3r#Room4",
     ["Pr1nt3r#Room4"], owner="u-priya", scope="project", speaker="Camille Durand")
leak("creds_pair", "system", "Shared test account for QA: qa.tester@acme.io / Qa!Test-7781-Zeta",
     ["Qa!Test-7781-Zeta"], owner="u-priya", scope="project")
leak("creds_pair", "assistant",
     "Noted: the FTP server is ftp.partner.example, username upload_acme, password 7hV!mq2Rz0 — you may want to "
     "rotate it since it was shared here.",
     ["7hV!mq2Rz0"], owner="u-tomas", scope="project")

# ---- speaker_or_metadata (content ordinary)
sm_k = rs(32, HEX)
leak("speaker_or_metadata", "user", "Forwarded email: the offsite is moved to Thursday 3pm, room Elbe.",
     [sm_k], owner="u-lena", scope="project",
     metadata={"source": "email-import", "headers": {"from": "office@acme.io", "x-api-key": sm_k}})
sm_g = "ghp_" + rs(36)
leak("speaker_or_metadata", "tool", "Deployment of payments-api v2.3.1 to staging finished in 4m12s.",
     [sm_g], owner="u-marco", speaker=f"deploy-bot (token {sm_g})", metadata={"tool": "deploy"})
leak("speaker_or_metadata", "system", "Sync job completed, 42 new contacts imported.",
     ["Cr0wd!Sync-55"], owner="u-priya", scope="project",
     metadata={"integration": {"name": "crm-sync",
                               "auth": {"type": "password", "username": "sync@acme.io", "password": "Cr0wd!Sync-55"}}})
sm_x = f"xoxb-{rs(12, DG)}-{rs(13, DG)}-{rs(24)}"
leak("speaker_or_metadata", "participant", "sounds good, see you at the standup",
     [sm_x], owner="u-aiko", scope="project", speaker="Jana Berg",
     metadata={"client": "slack-bridge", "raw": {"team": "T0ACME", "auth": {"bot_token": sm_x}}})

# ---- attachment_caption
leak("attachment_caption", "user", "here's the screenshot of the router page",
     ["Kr8ken!Deep"], owner="u-lena",
     attachments=[{"kind": "image", "caption": "router admin page — user admin, password Kr8ken!Deep"}])
psk = rs(24, AN + "!#%")
leak("attachment_caption", "participant", "the onboarding doc, see page 2",
     [psk], owner="u-priya", scope="project", speaker="Priya Nair",
     attachments=[{"kind": "file", "caption": f"onboarding.pdf (VPN pre-shared key: {psk})"}])

# ---- k8s_secret
k_pw = rs(20)
k_pw_b = b64(k_pw.encode())
leak("k8s_secret", "tool",
     f"$ kubectl get secret db-creds -n payments -o yaml\napiVersion: v1\ndata:\n  password: {k_pw_b}\n"
     f"  username: {b64(b'orders')}\nkind: Secret\nmetadata:\n  name: db-creds\n  namespace: payments\ntype: Opaque",
     [k_pw_b], owner="u-tomas", metadata={"tool": "bash"})
k_sk, k_ek = "sk_live_" + rs(24), b64(rb(32))
leak("k8s_secret", "tool",
     "$ kubectl get secret api-keys -n payments -o json | jq -r '.data | map_values(@base64d)'\n"
     + json.dumps({"STRIPE_KEY": k_sk, "ENCRYPTION_KEY": k_ek}, indent=2),
     [k_sk, k_ek], owner="u-tomas", metadata={"tool": "bash"})
k_pw3 = "Pay-" + rs(14)
k_pw3_b = b64(k_pw3.encode())
leak("k8s_secret", "assistant",
     f"Decoding the `data.password` field you pasted (`{k_pw3_b}`) gives `{k_pw3}` — so the secret itself is fine; "
     "the pod just isn't mounting it.",
     [k_pw3_b, k_pw3], owner="u-priya")

# ---- discord_token
d_id = b64u(str(R.randint(10 ** 17, 10 ** 18)).encode())
dt1 = f"{d_id}.{rs(6, URLSAFE)}.{rs(38, URLSAFE)}"
d_id2 = b64u(str(R.randint(10 ** 17, 10 ** 18)).encode())
dt2 = f"{d_id2}.{rs(6, URLSAFE)}.{rs(38, URLSAFE)}"
dw_t = rs(68, URLSAFE)
dwh = f"https://discord.com/api/webhooks/{R.randint(10 ** 17, 10 ** 18)}/{dw_t}"
leak("discord_token", "user", f"my discord bot token is {dt1} and it keeps getting reset, why", [dt1],
     owner="u-aiko")
leak("discord_token", "tool",
     f"$ cat bot/config.ini\n[discord]\ntoken = {dt2}\nprefix = !\nwebhook = {dwh}",
     [dt2, dwh, dw_t], owner="u-aiko", metadata={"tool": "bash"})

# ---- twilio_key
tw_sid, tw_tok = "AC" + rs(32, HEX), rs(32, HEX)
leak("twilio_key", "tool",
     f"$ cat twilio.env\nTWILIO_ACCOUNT_SID={tw_sid}\nTWILIO_AUTH_TOKEN={tw_tok}\nTWILIO_FROM=+4915112345678",
     [tw_tok], owner="u-marco", metadata={"tool": "bash"})
tw_k, tw_s = "SK" + rs(32, HEX), rs(32)
leak("twilio_key", "participant", f"sms api creds: key {tw_k} secret {tw_s}", [tw_s], owner="u-marco",
     speaker="Jana Berg")

# ---- gcp_service_account
pk8 = wrap(b64(b"\x30\x82\x04\xbe\x02\x01\x00\x30\x0d\x06\x09\x2a\x86\x48\x86\xf7\x0d\x01\x01\x01\x05\x00"
               b"\x04\x82\x04\xa8" + rb(1100)), 64)
pk8_pem = "-----BEGIN PRIVATE KEY-----\n" + "\n".join(pk8) + "\n-----END PRIVATE KEY-----\n"
sa = {"type": "service_account", "project_id": "acme-prod", "private_key_id": rs(40, HEX),
      "private_key": pk8_pem, "client_email": "ci-runner@acme-prod.iam.gserviceaccount.com",
      "client_id": rs(21, DG), "token_uri": "https://oauth2.googleapis.com/token"}
sa_json = json.dumps(sa, indent=2)
pk8_esc = json.dumps(pk8_pem)[1:-1]
leak("gcp_service_account", "user",
     f"CI can't auth to GCP, this is the key file I uploaded:\n{sa_json}",
     [pk8_esc, sa["private_key_id"]] + body_parts(pk8), owner="u-priya")
pk8b = wrap(b64(b"\x30\x82\x04\xbd\x02\x01\x00\x30\x0d\x06\x09\x2a\x86\x48\x86\xf7\x0d\x01\x01\x01\x05\x00"
                b"\x04\x82\x04\xa7" + rb(1100)), 64)
pk8b_pem = "-----BEGIN PRIVATE KEY-----\n" + "\n".join(pk8b) + "\n-----END PRIVATE KEY-----\n"
leak("gcp_service_account", "tool",
     f"$ jq -r .private_key sa-terraform.json\n{pk8b_pem}",
     [pk8b_pem.rstrip("\n"), "\n".join(pk8b)] + body_parts(pk8b), owner="u-priya", metadata={"tool": "bash"})

# ---- docker_auth
da_pw = "Reg-" + rs(16)
da1 = b64(f"ci-bot:{da_pw}".encode())
leak("docker_auth", "tool",
     "$ cat ~/.docker/config.json\n" + json.dumps({"auths": {"registry.acme.io": {"auth": da1}}}, indent=2),
     [da1], owner="u-lena", metadata={"tool": "bash"})
da_g = "ghp_" + rs(36)
da2 = b64(f"lena-k:{da_g}".encode())
leak("docker_auth", "user",
     "the pull secret is " + json.dumps({"auths": {"ghcr.io": {"auth": da2}}}, separators=(",", ":")) + " is that right?",
     [da2], owner="u-lena")

# ---- dsn_keyvalue
dk1 = "Sq1!" + rs(14)
leak("dsn_keyvalue", "tool",
     "$ grep -A2 ConnectionStrings appsettings.Production.json\n  \"ConnectionStrings\": {\n"
     f"    \"Default\": \"Server=sql01.internal;Database=Orders;User Id=sa;Password={dk1};TrustServerCertificate=True\"",
     [dk1], owner="u-marco", metadata={"tool": "bash"})
dk2 = rs(22)
leak("dsn_keyvalue", "system", f"Data source for the BI agent: Host=pg.internal;Port=5432;Username=reports;Password={dk2};Database=bi",
     [dk2], owner="u-marco")

# ---- some extra assistant / tool variety
leak("prose_password_en", "assistant",
     "Summary of what you told me: you moved to the new flat, the wifi is called Kovac-Home and its "
     "password is LakeView_2025!x. I'd rather not keep that password, so please confirm I can drop it.",
     ["LakeView_2025!x"], owner="u-lena")
ex_hf = "hf_" + rs(34, UP + LO)
leak("huggingface_token", "tool",
     f"$ cat ~/.cache/huggingface/token\n{ex_hf}", [ex_hf], owner="u-aiko", metadata={"tool": "bash"})

leak("creds_pair", "user",
     "Long day. The move went fine, the movers broke one lamp but whatever. Tomorrow I need to call the landlord "
     "about the heating, and remind me that the building's shared laundry booking site is laundry.hausverwaltung.example, "
     "login hausnr14 / Wasch-Tag!2025 — the caretaker gave it to everyone. Also the internet guy comes on Friday "
     "between 8 and 12, and I still have to unpack the kitchen boxes.",
     ["Wasch-Tag!2025"], owner="u-lena")
ex_ghp = "ghp_" + rs(36)
leak("github_token", "participant",
     "Recap from the sync: (1) the flaky test is the timezone one, Kenji takes it; (2) release is pushed to "
     f"Wednesday; (3) for the mirror job I generated a classic token, {ex_ghp}, repo scope only, it's in the "
     "runner config now; (4) nobody touches main until the freeze ends. Ping me if I forgot anything.",
     [ex_ghp], owner="u-priya", scope="project", speaker="Priya Nair")

# ================================================================ LOOKALIKES
look("password_manager", "user", "My password manager is 1Password.", ["1Password"], owner="u-lena")
look("password_manager", "user", "I use Bitwarden for passwords, synced to my phone and laptop.", ["Bitwarden"],
     owner="u-marco")
look("password_manager", "user", "My password is stored in KeePassXC on my laptop, not in the browser.",
     ["KeePassXC"], owner="u-tomas")
look("password_manager", "user", "Ich speichere meine Passwörter in Proton Pass.", ["Proton Pass"], owner="u-lena")
look("password_manager", "user", "J'utilise KeePass pour mes mots de passe depuis des années.", ["KeePass"],
     owner="u-marco")
look("password_manager", "user", "Mi gestor de contraseñas es Dashlane.", ["Dashlane"], owner="u-tomas")
look("token_budget", "user", "our token budget is 4096 per request", ["4096"], owner="u-priya", scope="project")
look("token_budget", "system", "The summarizer has a limit of 8192 output tokens per call; keep summaries short.",
     ["8192"], owner="u-priya", scope="project")
look("token_budget", "participant", "We burn roughly 2 million tokens a day on the support bot.", ["2 million"],
     owner="u-aiko", scope="project", speaker="Aiko Tanaka")
look("commit_hash", "user", "the fix landed in commit 3f9a2c1e7b", ["3f9a2c1e7b"], owner="u-marco", scope="project")
look("commit_hash", "assistant",
     "Noted: the regression was introduced in a41c9e0 and reverted in 7d2b88f.", ["a41c9e0", "7d2b88f"],
     owner="u-marco", scope="project")
look("uuid", "user", "The failing run id is 3b241101-e2bb-4255-8caf-4136c566a962, see ticket OPS-2214.",
     ["OPS-2214"], owner="u-priya", scope="project")
look("uuid", "user", "Our workspace id in the analytics tool is 7f5c2e9a-1d3b-4c8e-9a6f-2b7d4e1c0a93.",
     ["7f5c2e9a-1d3b-4c8e-9a6f-2b7d4e1c0a93"], owner="u-tomas", scope="project")
look("version", "user", "we're on Postgres 16.2", ["16.2"], owner="u-lena", scope="project")
look("version", "participant", "The mobile app is at version 4.12.0 on TestFlight right now.", ["4.12.0"],
     owner="u-aiko", scope="project", speaker="Kenji Mori")
look("version", "user", "I run Python 3.11.7 and Node 20.11 locally.", ["3.11.7"], owner="u-marco")
fp = "SHA256:" + b64(rb(32)).rstrip("=")
look("fingerprint", "user", f"My laptop's SSH key fingerprint is {fp}, that's the one GitHub should show.",
     [fp], owner="u-lena")
look("fingerprint", "user", "My GPG key ID is 0x3AFDEB23B7C1D5E9, it's published on the keyserver.",
     ["0x3AFDEB23B7C1D5E9"], owner="u-tomas")
look("region", "user", "our bucket lives in eu-west-1", ["eu-west-1"], owner="u-marco", scope="project")
look("region", "user", "Prod runs in GCP europe-west4, staging in us-central1.", ["europe-west4"], owner="u-priya",
     scope="project")
look("region", "participant", "We moved the Azure resources to westeurope last month.", ["westeurope"],
     owner="u-aiko", scope="project", speaker="Jana Berg")
look("policy", "user", "API key rotation policy is 90 days", ["90"], owner="u-priya", scope="project")
look("policy", "system", "Company policy: passwords must be at least 14 characters long.", ["14"],
     owner="u-priya", scope="project")
look("policy", "user", "Our secrets live in AWS Secrets Manager and get rotated every Sunday.",
     ["Secrets Manager"], owner="u-marco", scope="project")
look("policy", "participant", "Rule of thumb on our team: tokens are only shared through the Platform vault in 1Password.",
     ["Platform"], owner="u-tomas", scope="project", speaker="Tomás Ortega")
look("occupation", "user", "I'm a PIN-pad technician at a payments company.", ["technician"], owner="u-aiko")
look("occupation", "user", "I work as a locksmith and mostly install keypad door locks.", ["locksmith"],
     owner="u-tomas")
look("number_not_code", "user", "my locker is number 12", ["12"], owner="u-aiko")
look("number_not_code", "user", "My desk is 4B on the third floor.", ["4B"], owner="u-lena")
look("number_not_code", "user", "I live at house number 221, flat 3.", ["221"], owner="u-marco")
look("phone_extension", "user", "My phone extension at work is 4417.", ["4417"], owner="u-priya")
look("phone_extension", "participant", "Call the front desk at ext. 2210 if the projector breaks.", ["2210"],
     owner="u-priya", scope="project", speaker="Camille Durand")
look("order_number", "user", "My IKEA order number is 1187-3345-902, delivery is on Thursday.",
     ["1187-3345-902"], owner="u-lena")
look("order_number", "user", "The Amazon order 302-4417781-5529013 still hasn't arrived.",
     ["302-4417781-5529013"], owner="u-marco")
look("order_number", "user", "The UPS tracking number for my parcel is 1Z999AA10123456784.",
     ["1Z999AA10123456784"], owner="u-aiko")
look("postcode", "user", "I live in postcode 10115 in Berlin.", ["10115"], owner="u-lena")
look("postcode", "user", "Our London office postcode is EC1V 9HX.", ["EC1V"], owner="u-tomas", scope="project")


def isbn13(p12):
    s = sum(int(c) * (1 if i % 2 == 0 else 3) for i, c in enumerate(p12))
    return p12 + str((10 - s % 10) % 10)


isb1 = isbn13("978013468599")
isb2 = isbn13("978026204630")
look("isbn", "user", f"The book I'm reading right now has ISBN {isb1[:3]}-{isb1[3]}-{isb1[4:6]}-{isb1[6:12]}-{isb1[12]}.",
     [f"{isb1[:3]}-{isb1[3]}-{isb1[4:6]}-{isb1[6:12]}-{isb1[12]}"], owner="u-marco")
look("isbn", "participant", f"Our book club pick this month is ISBN {isb2}.", [isb2], owner="u-aiko",
     speaker="Kenji Mori")
look("colour", "user", "Our brand colour is #1E90FF.", ["#1E90FF"], owner="u-priya", scope="project")
look("colour", "user", "I painted the kitchen in #F4A261, a warm sand colour.", ["#F4A261"], owner="u-lena")
look("file_hash", "user",
     "The SHA-256 of the release tarball atlas-2.4.1.tar.gz is "
     "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08.",
     ["atlas-2.4.1.tar.gz"], owner="u-marco", scope="project")
look("file_hash", "user", "The md5 of the backup archive is d41d8cd98f00b204e9800998ecf8427e.",
     ["d41d8cd98f00b204e9800998ecf8427e"], owner="u-tomas")
edpub = b64(sshstr(b"ssh-ed25519") + sshstr(rb(32)))
look("public_key", "user", f"My SSH public key (public, fine to share) is ssh-ed25519 {edpub} lena@thinkpad",
     ["ssh-ed25519"], owner="u-lena")
agepub = "age1" + rs(58, "qpzry9x8gf2tvdw0s3jn54khce6mua7l")
look("public_key", "user", f"The public age recipient for our backups is {agepub}.", [agepub], owner="u-marco",
     scope="project")
look("account_id", "user", "Our AWS account ID is 482913570216.", ["482913570216"], owner="u-priya",
     scope="project")
look("account_id", "user", "My employee number is E-20931.", ["E-20931"], owner="u-aiko")
look("hostname", "user", "The staging database host is db-staging.internal on port 5432.", ["db-staging.internal"],
     owner="u-marco", scope="project")
look("secret_reference", "user", "The Kubernetes secret holding the Stripe keys is named stripe-creds.",
     ["stripe-creds"], owner="u-priya", scope="project")
look("secret_reference", "assistant",
     "Got it: the DB password is read from the env var APP_DB_PASSWORD, and its value lives in Vault.",
     ["APP_DB_PASSWORD"], owner="u-tomas", scope="project")
look("password_mention", "user", "I reset my password last week after that phishing email.", ["phishing"],
     owner="u-lena")
look("password_mention", "user", "I have 2FA enabled on every account, using a YubiKey 5C.", ["YubiKey"],
     owner="u-aiko")
look("network_name", "user", "The office wifi network is called Acme-Guest; reception hands out access.",
     ["Acme-Guest"], owner="u-tomas", scope="project")
look("ticket_id", "user", "The epic for the migration is PLAT-1042.", ["PLAT-1042"], owner="u-priya",
     scope="project")
look("rate_limit", "system", "Our API rate limit is 60 requests per minute per key.", ["60"], owner="u-priya",
     scope="project")

# ================================================================ write
def dump(row):
    line = json.dumps(row, ensure_ascii=False)
    for ch in ["\u200b", "\u200c", "\u200d", "\u2060", "\ufeff"]:
        line = line.replace(ch, "\\u%04x" % ord(ch))
    return line


with open("/work/evalsets/secrets_dev/secrets.jsonl", "w", encoding="utf-8") as f:
    for r in rows:
        f.write(dump(r) + "\n")
print("wrote", len(rows))
