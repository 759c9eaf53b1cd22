import base64, hashlib, hmac, json, random, string, zlib

R = random.Random(731204)
KD = "/tmp/shkeys/"
WORDS = open(KD + "w.txt").read().split()

UP = string.ascii_uppercase
LO = string.ascii_lowercase
DG = string.digits
HEX = "0123456789abcdef"
AN = UP + LO + DG
B64 = AN + "+/"
B64U = AN + "-_"


def rs(alpha, n):
    return "".join(R.choice(alpha) for _ in range(n))


def b62(n, width):
    out = ""
    while n:
        n, r = divmod(n, 62)
        out = (DG + UP + LO)[r] + out
    return out.rjust(width, "0")


def crc_token(prefix, nrand=30):
    body = rs(AN, nrand)
    return prefix + body + b62(zlib.crc32(body.encode()), 6)


def luhn_ok(num):
    d = [int(c) for c in num][::-1]
    s = 0
    for i, x in enumerate(d):
        if i % 2:
            x *= 2
            if x > 9:
                x -= 9
        s += x
    return s % 10 == 0


def card(prefix, length):
    body = prefix + rs(DG, length - len(prefix) - 1)
    for c in DG:
        if luhn_ok(body + c):
            return body + c


def group(s, sizes, sep):
    out, i = [], 0
    for z in sizes:
        out.append(s[i:i + z])
        i += z
    return sep.join(out)


def iban_num(s):
    return int("".join(str(int(c, 36)) for c in s))


def iban(cc, bban):
    chk = 98 - iban_num(bban + cc + "00") % 97
    v = cc + "%02d" % chk + bban
    assert iban_num(v[4:] + v[:4]) % 97 == 1
    return v


def iban_sp(v):
    return " ".join(v[i:i + 4] for i in range(0, len(v), 4))


def fr_bban():
    bank, branch, acct = rs(DG, 5), rs(DG, 5), rs(DG, 11)
    key = 97 - ((89 * int(bank) + 15 * int(branch) + 3 * int(acct)) % 97)
    return bank + branch + acct + "%02d" % key


def es_bban():
    w = [1, 2, 4, 8, 5, 10, 9, 7, 3, 6]

    def cd(digs):
        r = 11 - sum(int(a) * b for a, b in zip(digs, w)) % 11
        return {10: 1, 11: 0}.get(r, r)
    bank, branch, acct = "2100", rs(DG, 4), rs(DG, 10)
    c1 = cd("00" + bank + branch)
    c2 = cd(acct)
    return bank + branch + str(c1) + str(c2) + acct


def nl_bban():
    while True:
        a = rs(DG, 10)
        if a[0] != "0" and sum(int(c) * (10 - i) for i, c in enumerate(a)) % 11 == 0:
            return "RABO" + a


def seed(nbytes):
    ent = bytes(R.getrandbits(8) for _ in range(nbytes))
    h = hashlib.sha256(ent).digest()
    cs = nbytes * 8 // 32
    bits = bin(int.from_bytes(ent, "big"))[2:].zfill(nbytes * 8) + bin(h[0])[2:].zfill(8)[:cs]
    return [WORDS[int(bits[i:i + 11], 2)] for i in range(0, len(bits), 11)]


def b64u(b):
    return base64.urlsafe_b64encode(b).rstrip(b"=").decode()


def jwt(payload):
    h = b64u(json.dumps({"alg": "HS256", "typ": "JWT"}, separators=(",", ":")).encode())
    p = b64u(json.dumps(payload, separators=(",", ":")).encode())
    key = bytes(R.getrandbits(8) for _ in range(32))
    sig = b64u(hmac.new(key, (h + "." + p).encode(), hashlib.sha256).digest())
    return h + "." + p + "." + sig, sig


def pem(name):
    return open(KD + name).read().strip()


def pem_lines(p, idx):
    ls = p.splitlines()
    return [ls[i] for i in idx]


def b64s(s):
    return base64.b64encode(s.encode()).decode()


# ---------------------------------------------------------------- generated values
OA1 = "sk-proj-" + rs(B64U, 58) + "T3BlbkFJ" + rs(B64U, 58)
OA2 = "sk-proj-" + rs(B64U, 58) + "T3BlbkFJ" + rs(B64U, 58)
OA3 = "sk-" + rs(AN, 20) + "T3BlbkFJ" + rs(AN, 20)
OA4 = "sk-" + rs(AN, 20) + "T3BlbkFJ" + rs(AN, 20)
ANT1 = "sk-ant-api03-" + rs(B64U, 93) + "AA"
ANT2 = "sk-ant-api03-" + rs(B64U, 93) + "AA"
AKIA1 = "AKIA" + rs(UP + "234567", 16)
AWSS1 = rs(B64, 40)
AKIA2 = "AKIA" + rs(UP + "234567", 16)
AWSS2 = rs(B64, 40)
AKIA3 = "AKIA" + rs(UP + "234567", 16)
AWSS3 = rs(B64, 40)
AKIA4 = "AKIA" + rs(UP + "234567", 16)
AWSS4 = rs(B64, 40)
GHP1 = crc_token("ghp_")
GHP2 = crc_token("ghp_")
GHP3 = crc_token("ghp_")
GHPAT = "github_pat_11" + rs(UP + DG, 20) + "_" + rs(AN, 59)
NPM1 = crc_token("npm_")
GLPAT = "glpat-" + rs(B64U, 20)
XOXB1 = "xoxb-" + rs(DG, 12) + "-" + rs(DG, 13) + "-" + rs(AN, 24)
XOXB2 = "xoxb-" + rs(DG, 11) + "-" + rs(DG, 13) + "-" + rs(AN, 24)
SLK_SEC1 = rs(AN, 24)
SLACKHOOK1 = "https://hooks.slack.com/services/T0" + rs(UP + DG, 8) + "/B0" + rs(UP + DG, 9) + "/" + SLK_SEC1
SLK_SEC2 = rs(AN, 24)
SLACKHOOK2 = "https://hooks.slack.com/services/T0" + rs(UP + DG, 8) + "/B0" + rs(UP + DG, 9) + "/" + SLK_SEC2
SLK_SEC3 = rs(AN, 24)
SLACKHOOK3 = "https://hooks.slack.com/services/T0" + rs(UP + DG, 8) + "/B0" + rs(UP + DG, 9) + "/" + SLK_SEC3
DSC_SEC1 = rs(B64U, 68)
DISCORD1 = "https://discord.com/api/webhooks/1" + rs(DG, 18) + "/" + DSC_SEC1
DSC_SEC2 = rs(B64U, 68)
DISCORD2 = "https://discordapp.com/api/webhooks/1" + rs(DG, 17) + "/" + DSC_SEC2
SKLIVE = "sk_live_51" + rs(AN, 97)
RKLIVE = "rk_live_51" + rs(AN, 97)
TW_AC1 = "AC" + rs(HEX, 32)
TW_TOK1 = rs(HEX, 32)
TW_AC2 = "AC" + rs(HEX, 32)
TW_TOK2 = rs(HEX, 32)
TW_SK = "SK" + rs(HEX, 32)
TW_SKSEC = rs(AN, 32)
MG1 = "key-" + rs(HEX, 32)
MG2 = "key-" + rs(HEX, 32)
SHP1 = "shpat_" + rs(HEX, 32)
SHP2 = "shpat_" + rs(HEX, 32)
DOP1 = "dop_v1_" + rs(HEX, 64)
DOP2 = "dop_v1_" + rs(HEX, 64)
DAPI1 = "dapi" + rs(HEX, 32)
DAPI2 = "dapi" + rs(HEX, 32) + "-2"
HF1 = "hf_" + rs(UP + LO, 34)
GAPI = "AIza" + rs(B64U, 35)
SG1 = "SG." + rs(B64U, 22) + "." + rs(B64U, 43)
SG2 = "SG." + rs(B64U, 22) + "." + rs(B64U, 43)
TG = rs("123456789", 1) + rs(DG, 9) + ":AA" + rs(B64U, 33)
AZKEY = base64.b64encode(bytes(R.getrandbits(8) for _ in range(64))).decode()
AZCONN = "DefaultEndpointsProtocol=https;AccountName=acmelogs;AccountKey=" + AZKEY + ";EndpointSuffix=core.windows.net"
ATL = "ATATT3xFfGF0" + rs(B64U, 170) + "=" + rs(HEX.upper(), 8)
BEARER1 = rs(HEX, 40)
BEARER2 = rs(AN, 48)
BEARER3 = "ya29.a0" + rs(B64U, 140)
JWT1, JWT1SIG = jwt({"sub": "usr_48213", "email": "ops@example-shop.com", "role": "admin", "iat": 1741600000, "exp": 1744192000})
JWT2, JWT2SIG = jwt({"sub": "svc-reporting", "scope": "orders:read invoices:read", "iat": 1738000000, "exp": 1769536000})
JWT3, JWT3SIG = jwt({"sub": "42", "name": "Hannah Lee", "tenant": "northwind", "iat": 1745000000, "exp": 1745086400})
BASIC1 = b64s("deploy:St0rmbreaker!")
BASIC2 = b64s("grafana-admin:p4ncake_Stack#9")
GCP_KID = rs(HEX, 40)
OP_PW = "vN7&kq2#Lw8zTe!4"

VISA1 = card("491633", 16)
VISA2 = card("4539", 16)
MC1 = card("541275", 16)
MC2 = card("222100", 16)
MC3 = card("5196", 16)
AMEX1 = card("3782", 15)
AMEX2 = card("3475", 15)
VISA1s = group(VISA1, [4, 4, 4, 4], " ")
MC1d = group(MC1, [4, 4, 4, 4], "-")
AMEX2s = group(AMEX2, [4, 6, 5], " ")
MC2s = group(MC2, [4, 4, 4, 4], " ")
VISA2d = group(VISA2, [4, 4, 4, 4], "-")

IBAN_DE = iban("DE", "50010517" + rs(DG, 10))
IBAN_GB = iban("GB", "NWBK" + "601613" + rs(DG, 8))
IBAN_GB2 = iban("GB", "BARC" + "200415" + rs(DG, 8))
IBAN_FR = iban("FR", fr_bban())
IBAN_NL = iban("NL", nl_bban())
IBAN_ES = iban("ES", es_bban())
IBAN_DE2 = iban("DE", "12030000" + rs(DG, 10))

SEED12 = seed(16)
SEED24 = seed(32)
SEED12b = seed(16)

RSA_PEM = pem("rsa1.pem")
PK8_PEM = pem("pk8.pem")
EC_PEM = pem("ec.pem")
ED_PEM = pem("ed1")
GCP_PEM = pem("gcp.pem")

GH_RC = ["%s-%s" % (rs(HEX, 5), rs(HEX, 5)) for _ in range(8)]
G_RC = ["%s %s" % (rs(DG, 4), rs(DG, 4)) for _ in range(10)]

ZW = "\u200b"

# ---------------------------------------------------------------- helpers for events
OFFS = ["+01:00", "-05:00", "+02:00", "+00:00", "-07:00", "+05:30", "+09:00", "-03:00", "+10:00", "-08:00", "+01:00", "+03:00"]
OWNERS = ["u-mkowal", "u-priya", "u-jweber", "u-lmartin", "u-dkessler", "u-sam", "u-hlee", "u-ops-team", "u-marta", "u-tnguyen", "u-akhan", "u-cdubois"]

records = []
counter = {"leak": 0, "lookalike": 0}


def ts(i):
    day = 1 + (i * 7) % 28
    month = 1 + (i // 4) % 12
    hour = (8 + i * 5) % 24
    minute = (i * 13) % 60
    sec = (i * 29) % 60
    return "2025-%02d-%02dT%02d:%02d:%02d%s" % (month, day, hour, minute, sec, OFFS[i % len(OFFS)])


def add(kind, family, role, content, vals, owner=None, scope=None, conv=None, speaker=None, metadata=None, attachments=None):
    counter[kind] += 1
    n = counter[kind]
    if kind == "leak":
        rid = "sh-%03d" % n
    else:
        rid = "sh-L%02d" % n
    i = n + (0 if kind == "leak" else 200)
    ev = {
        "event_id": rid,
        "tenant_id": "t-sech",
        "owner_id": owner or OWNERS[i % len(OWNERS)],
        "scope": scope or ("project" if role in ("tool", "system") or i % 3 == 0 else "personal"),
        "conversation_id": conv or "c-sech-%03d" % (i if kind == "leak" else i),
        "role": role,
        "content": content,
        "occurred_at": ts(i),
    }
    if speaker is not None:
        ev["speaker"] = speaker
    if metadata is not None:
        ev["metadata"] = metadata
    if attachments is not None:
        ev["attachments"] = attachments
    rec = {"id": rid, "family": family, "kind": kind, "event": ev}
    if kind == "leak":
        rec["secrets"] = vals
    else:
        rec["keep"] = vals
    records.append(rec)


def L(family, role, content, secrets, **kw):
    add("leak", family, role, content, secrets, **kw)


def K(family, role, content, keep, **kw):
    add("lookalike", family, role, content, keep, **kw)


# ================================================================ LEAKS
# ---- casual passwords
L("password_casual", "user",
  "heres my login for the vendor portal just in case u need it - user dkessler pw Marlin$Bay42 dont judge",
  ["Marlin$Bay42"])
L("password_casual", "user",
  "ugh I always forget it. netflix password is sunflower_tuesday88 — can you remember it for me?",
  ["sunflower_tuesday88"])
L("password_casual", "user",
  "FYI for the shared drive: USERNAME ops-shared PASSWORD Kx!7rT0ngue#Lake",
  ["Kx!7rT0ngue#Lake"])
L("password_casual", "user",
  "lunch was great btw, the ramen place on 5th is legit. oh and before I forget the admin panel pass is pelican-Rust-2291, then remind me to book the dentist",
  ["pelican-Rust-2291"])
L("password_casual", "participant",
  "ok family plan login for the streaming thing: email sam.fam.streaming@gmail.com password Pineapple!Express9 — please don't change it again Dave",
  ["Pineapple!Express9"], speaker="Sam")
L("password_casual", "system",
  "Note for the assistant: the staging admin panel (https://staging.acme.io/admin) login is admin / Stag1ng!Otter_44. Never reveal it to end users.",
  ["Stag1ng!Otter_44"])
L("password_generated", "assistant",
  "Here's a strong password you can use for the router admin page: hT7#qLw9!zV2mRx4 — paste it into your password manager before you close this chat.",
  ["hT7#qLw9!zV2mRx4"])
L("password_casual", "user",
  "new email pw = Qm3-orchid-Falcon!! (the old one got phished lol)",
  ["Qm3-orchid-Falcon!!"])

# ---- wifi
L("wifi_password", "user", "wifi at the cabin: Lakeview_5G / pw loon$call2023!", ["loon$call2023!"])
L("wifi_password", "user", "mon code wifi c'est Citron-rapide-4412 si jamais tu passes chez moi samedi", ["Citron-rapide-4412"])
L("wifi_password", "assistant",
  "Got it! Your guest network is 'Harbor_Guest' and the password is seagull!Dock7. I'll add it to the welcome note for your weekend guests.",
  ["seagull!Dock7"])
L("wifi_password", "participant",
  "le mot de passe du wifi c'est Maison*Bleue*1987, le réseau c'est Livebox-9A3F 🙂",
  ["Maison*Bleue*1987"], speaker="Camille")
L("wifi_password", "user", "here's the sticker from the back of the new router so we have it",
  ["7734-9920-1185-4406"],
  attachments=[{"kind": "image", "caption": "Router label — SSID: FRITZ!Box 7590 XQ, WPA2 key: 7734-9920-1185-4406"}])
L("wifi_password", "assistant",
  "Alles klar, ich habe das neue WLAN-Passwort notiert: Kuckucksuhr#19. Soll ich es auch an Anna schicken?",
  ["Kuckucksuhr#19"])

# ---- door codes / pins / locks
L("door_code", "user", "ok the garage door code is 7-2-0-4-8 btw, the cleaners come thursday", ["7-2-0-4-8"])
L("door_code", "user", "alarm disarm code for the office is 83915, panel is left of the front door", ["83915"])
L("door_code", "participant",
  "Hi! Welcome to Casa Sol 🌞 Lockbox code is 4 0 9 1, key is inside. Wifi: CasaSol_2G / Buganvilla!62",
  ["4 0 9 1", "Buganvilla!62"], speaker="Host - Inés")
L("lock_combination", "user", "lol the bike lock combo is 3-3-8-1, it's the blue one outside the gym", ["3-3-8-1"])
L("card_pin", "user", "el pin de la tarjeta es 6093, no se lo digas a nadie jaja", ["6093"])
L("card_pin", "user", "note to self: debit card PIN 2817, the travel card one is 5530", ["2817", "5530"])
L("phone_pin", "user", "my voicemail PIN is 731946 if you ever need to check messages for me", ["731946"])

# ---- payment cards
L("credit_card", "user",
  "can you book the hotel in Porto? card %s exp 08/27 cvv 331, name on card Priya Raman" % VISA1s, [VISA1s])
L("credit_card", "user",
  "use my mastercard for the flights: %s, expires 11/28, security code 904" % MC1d, [MC1d])
L("credit_card", "user", "amex is %s (no spaces) exp 0329 cid 7712" % AMEX1, [AMEX1])
L("credit_card", "assistant",
  "I've filled the checkout form with card %s, exp 11/26, CVC 902. Shall I place the order?" % MC2s, [MC2s])
L("credit_card", "participant",
  "I'll cover the villa deposit, use my amex %s exp 06/27 CID 4410 — we can settle later" % AMEX2s, [AMEX2s], speaker="Tom")
L("credit_card", "tool",
  "[browser.autofill] saved payment methods:\n  - VISA  %s  exp 02/29  name: H LEE\n  - MC    %s  exp 07/27  name: H LEE" % (VISA2d, MC3),
  [VISA2d, MC3])

# ---- IBAN
L("iban", "user",
  "Kannst du die Kaution überweisen? IBAN %s, BIC COBADEFFXXX, Kontoinhaber Jonas Weber" % iban_sp(IBAN_DE), [iban_sp(IBAN_DE)])
L("iban", "user", "rent goes to %s (sort code is in there), reference FLAT3B" % IBAN_GB, [IBAN_GB])
L("iban", "user", "for the shared holiday pot, iban: %s — tikkie didn't work" % iban_sp(IBAN_NL).lower(), [iban_sp(IBAN_NL).lower()])
L("iban", "assistant",
  "Transfer prepared: beneficiary Lucía Martín, IBAN %s, amount 1.250,00 EUR, concepto 'alquiler marzo'. Confirm and I'll submit it." % iban_sp(IBAN_ES),
  [iban_sp(IBAN_ES)])
L("iban", "participant", "pour le remboursement du week-end : %s (BNP), merci !" % iban_sp(IBAN_FR), [iban_sp(IBAN_FR)], speaker="Claire")
L("iban", "tool",
  "invoice_parser → {\"supplier\": \"Blackwood Joinery Ltd\", \"amount\": \"2,480.00 GBP\", \"iban\": \"%s\", \"due\": \"2025-04-30\"}" % IBAN_GB2,
  [IBAN_GB2])

# ---- seed phrases
s12 = " ".join(SEED12)
L("seed_phrase", "user", "backup this for me pls, it's my ledger recovery phrase: %s" % s12,
  [s12, " ".join(SEED12[0:2]), " ".join(SEED12[5:7]), " ".join(SEED12[10:12])])
s24 = ", ".join(SEED24)
L("seed_phrase", "user", "writing it here so i dont lose it — metamask seed: %s" % s24,
  [s24, ", ".join(SEED24[0:2]), ", ".join(SEED24[11:13]), ", ".join(SEED24[22:24])])
s12b = " ".join(SEED12b)
L("seed_phrase", "assistant",
  "Sure — here is the 12-word phrase you asked me to keep: %s. Please also write it on paper." % s12b.upper(),
  [s12b.upper(), " ".join(SEED12b[0:2]).upper(), " ".join(SEED12b[6:8]).upper()])

# ---- multi-word passphrase
L("passphrase", "user",
  "my 1password master password is 'velvet otter marmalade harbor 19' lol dont tell anyone",
  ["velvet otter marmalade harbor 19", "velvet otter", "otter marmalade", "marmalade harbor"])

# ---- OTP / 2FA
L("otp_code", "participant", "ok the code is 558207, hurry it expires in 30s", ["558207"], speaker="Marta")
L("otp_code", "user", "got the sms, 2FA code is 604 218 — quick before it expires", ["604 218"])
L("otp_code", "tool",
  "sms.search(from=\"72975\") →\n[2025-05-02 14:03] Your Acme verification code is 739104. Do not share it with anyone.",
  ["739104"])
L("otp_code", "participant", "Bestätigungscode: 291-604 — kannst du dich jetzt einloggen?", ["291-604"], speaker="Jonas")

# ---- recovery codes
L("recovery_codes", "user",
  "these are my github recovery codes, keep them safe:\n" + "\n".join(GH_RC), list(GH_RC))
L("recovery_codes", "assistant",
  "Here are the Google backup codes you asked me to hold onto:\n" + "\n".join("%d. %s" % (i + 1, c) for i, c in enumerate(G_RC)),
  list(G_RC))

# ---- API keys, user/assistant
L("openai_key", "user", "my key is %s dont share lol, using it for the side project" % OA1, [OA1])
L("openai_key", "assistant",
  "I've set OPENAI_API_KEY=%s in your .env and restarted the worker. Let me know if the 401s stop." % OA2, [OA2])
L("anthropic_key", "user", "Here's the API key for the eval harness: %s" % ANT1, [ANT1])
L("anthropic_key", "system", "Runtime context loaded.", [ANT2],
  metadata={"runtime": {"region": "eu-west-1", "env": {"ANTHROPIC_API_KEY": ANT2, "LOG_LEVEL": "info"}}})
L("stripe_key", "user", "live key for the shop, the test one stopped working: %s" % SKLIVE, [SKLIVE])
L("stripe_key", "assistant",
  "Done — I swapped the Stripe secret to %s (restricted key) in config/payments.yml and redeployed." % RKLIVE, [RKLIVE])
L("mailgun_key", "user", "mailgun api key is %s, domain mg.crumbbakery.co" % MG1, [MG1])
L("mailgun_key", "system", "Outbound mail is configured. Mailgun domain: mg.acme.io. API key: %s. Use it only for transactional mail." % MG2, [MG2])
L("shopify_token", "user", "shopify admin api token %s — the private app is called 'inventory-sync'" % SHP1, [SHP1])
L("shopify_token", "system", "Store integration enabled for northwind-goods.myshopify.com. X-Shopify-Access-Token: %s" % SHP2, [SHP2])
L("digitalocean_token", "user", "DO token for terraform: %s" % DOP1, [DOP1])
L("digitalocean_token", "system", "Infra tools available. Environment: DIGITALOCEAN_TOKEN=%s, DO_REGION=fra1" % DOP2, [DOP2])
L("databricks_token", "participant", "use my token for now %s until IT gives you your own" % DAPI2, [DAPI2], speaker="Anil")
L("databricks_token", "tool",
  "mail.search(\"databricks token\") → 1 result\nFrom: platform-team@acme.io\nSubject: Your workspace token\n\nHi, your personal access token for adb-4419.azuredatabricks.net is %s (valid 90 days)." % DAPI1,
  [DAPI1])
L("huggingface_token", "user", "HF_TOKEN=%s for the private model repo, read scope only" % HF1, [HF1])
L("google_api_key", "user", "the maps embed key is %s, restricted to our domain I think" % GAPI, [GAPI])
L("sendgrid_key", "participant", "sendgrid key for the newsletter: %s" % SG1, [SG1], speaker="Priya")
L("telegram_bot_token", "user", "bot token from BotFather: %s — the bot is @plant_water_reminder_bot" % TG, [TG])
L("azure_storage_key", "user", "conn string for the logs storage account: %s" % AZCONN, [AZCONN, AZKEY])
L("atlassian_token", "system",
  "You may call the Jira REST API at https://acme.atlassian.net with basic auth using bot@acme.io and API token %s." % ATL, [ATL])
L("twilio_credentials", "participant",
  "Twilio for the SMS reminders: account %s, auth token %s" % (TW_AC2, TW_TOK2), [TW_TOK2], speaker="Lena")
L("slack_token", "assistant", "The bot now uses SLACK_BOT_TOKEN=%s; I invited it to #deploys." % XOXB1, [XOXB1])
L("github_token", "user", "fine-grained token for the release script: %s (expires in 30 days)" % GHPAT, [GHPAT])
L("github_token", "assistant",
  "I configured the remote as https://x-access-token:%s@github.com/acme/infra.git so pushes work non-interactively." % GHP1, [GHP1])

# ---- webhooks
L("slack_webhook", "user", "our alerts go to %s, can you format the message as blocks?" % SLACKHOOK1, [SLACKHOOK1, SLK_SEC1])
L("slack_webhook", "participant", "here's the webhook for #standup: %s" % SLACKHOOK2, [SLACKHOOK2, SLK_SEC2], speaker="Raj")
L("discord_webhook", "user", "post the patch notes here pls %s" % DISCORD1, [DISCORD1, DSC_SEC1])
L("discord_webhook", "system",
  'Notification routing (json): {"notify": {"on_failure": {"discord": "%s", "mention": "@oncall"}}}' % DISCORD2, [DISCORD2, DSC_SEC2])

# ---- auth headers / jwt / bearer
L("jwt_bearer", "user",
  "this works for me: curl -H 'Authorization: Bearer %s' https://api.example-shop.com/v2/orders?limit=5" % JWT1, [JWT1, JWT1SIG])
L("bearer_token", "user",
  "header is authorization: bearer %s (all lowercase, their gateway is picky)" % BEARER1, [BEARER1])
L("basic_auth", "user", "the monitoring probe sends Authorization: Basic %s — why does it 401?" % BASIC1, [BASIC1])
L("bearer_token", "tool",
  "GET /v1/reports/daily HTTP/1.1\nhost: reports.internal\nuser-agent: python-requests/2.31\nauthorization: bearer %s\naccept: */*\n\nHTTP/1.1 200 OK" % BEARER2,
  [BEARER2])
L("jwt_bearer", "assistant",
  "Decoded it: the token %s is for svc-reporting with scope orders:read invoices:read and doesn't expire until 2026." % JWT2, [JWT2, JWT2SIG])
L("basic_auth", "tool",
  "$ grep -A3 datasources grafana/provisioning/ds.yaml\n  - name: prometheus\n    basicAuth: true\n    headers:\n      Authorization: \"Basic %s\"" % BASIC2,
  [BASIC2])

# ---- db connection strings / CLI passwords
DBURL1 = "postgres://orders_app:Wint3r!sComing@db-prod-2.internal:5432/orders"
L("db_connection_string", "user", "prod db is %s, read replica uses the same creds" % DBURL1, [DBURL1, "Wint3r!sComing"])
DBURL2 = "postgresql://app:m0ss-Tundra-88@db:5432/app"
L("db_connection_string", "assistant",
  "Your docker-compose now sets POSTGRES_PASSWORD=m0ss-Tundra-88 and the app reads DATABASE_URL=%s." % DBURL2,
  ["m0ss-Tundra-88", DBURL2])
L("cli_password_flag", "user",
  "I just run `sshpass -p 'Gr@nite_Peak_09' ssh deploy@10.4.2.19` every morning, is that bad?", ["Gr@nite_Peak_09"])
L("cli_password_flag", "user",
  "mysql -u root -p'Oct0pus#Ink' -h 127.0.0.1 shop_prod   <- this is how I connect, it says access denied now", ["Oct0pus#Ink"])
L("cli_password_flag", "user",
  "curl -u admin:Hx9!vQ2#mLp7 -X POST https://jenkins.internal.acme.io/job/deploy/build", ["admin:Hx9!vQ2#mLp7", "Hx9!vQ2#mLp7"])
L("cli_password_flag", "assistant",
  "I connected with `sshpass -p 'raspberry!Basil42' ssh -o StrictHostKeyChecking=no pi@192.168.1.50` and the service is back up.",
  ["raspberry!Basil42"])
L("cli_password_flag", "tool",
  "[Pipeline] sh\n+ curl -sS -u ci-bot:Xq8_Lumen-7Rz --data-binary @build.json https://nexus.acme.io/repository/raw/\n{\"status\":\"stored\"}",
  ["ci-bot:Xq8_Lumen-7Rz", "Xq8_Lumen-7Rz"])

# ---- non-English passwords
L("password_nonenglish", "user", "Das Kennwort lautet Sommerregen!2024 – für den Router im Keller", ["Sommerregen!2024"])
L("password_nonenglish", "user", "la contraseña del portal del cole es Girasol#8821, usuario lmartin", ["Girasol#8821"])
L("password_nonenglish", "user", "la password della posta è Farfalla_77! cambiala tu se vuoi", ["Farfalla_77!"])
L("password_nonenglish", "participant", "Das Passwort für das Vereinskonto ist Turnhalle$2025, bitte nicht weitergeben", ["Turnhalle$2025"], speaker="Jonas")
L("password_nonenglish", "user", "o código do alarme é 4-7-7-0 e a senha do wifi é Cajueiro@88", ["4-7-7-0", "Cajueiro@88"])

# ---- obfuscated
zw_pw = "Cu9per" + ZW + "L4ntern" + ZW + "#8812"
L("obfuscated_zero_width", "user", "new password for the bank app: %s (copied from my notes app)" % zw_pw,
  [zw_pw, "Cu9per", "L4ntern"])
zw_key = OA3[:17] + "\u2060" + OA3[17:34] + "\ufeff" + OA3[34:]
L("obfuscated_zero_width", "user", "trying again, the key is %s" % zw_key,
  [zw_key, OA3[:17], OA3[17:34], OA3[34:]])
fw_pw = "Ｈｕｎｔｅｒ＿Ｂｌｕｅ７７"
L("obfuscated_fullwidth", "user", "ｐａｓｓｗｏｒｄ： %s for the kiosk login" % fw_pw, [fw_pw])
fw_pin = "９４１７２６"
L("obfuscated_fullwidth", "participant", "card pin %s, don't tell mum" % fw_pin, [fw_pin], speaker="Leo")
zw_tok = GHP3[:12] + "\u200c" + GHP3[12:26] + "\u200d" + GHP3[26:]
L("obfuscated_zero_width", "assistant", "Token saved for the CI job: %s" % zw_tok, [zw_tok, GHP3[:12], GHP3[12:26], GHP3[26:]])

# ---- secrets in metadata / speaker
L("metadata_secret", "user", "sending this from the CLI client, the upload keeps failing", [AKIA3, AWSS3],
  metadata={"client": {"name": "epicli", "version": "0.9.2", "env": {"AWS_ACCESS_KEY_ID": AKIA3, "AWS_SECRET_ACCESS_KEY": AWSS3}}})
L("metadata_secret", "tool", "http_request completed: 200 OK (412 ms)", [BEARER3],
  metadata={"request": {"method": "GET", "url": "https://www.googleapis.com/drive/v3/files", "headers": {"Authorization": "Bearer " + BEARER3}}})
L("metadata_secret", "participant", "fwd: see the note below", ["Velcro-Drum-5581"],
  metadata={"forwarded_from": {"sender": "it-desk", "notes": ["temp password for your laptop: Velcro-Drum-5581", "change it at first login"]}}, speaker="IT Desk")
L("speaker_secret", "participant", "Deploy #4412 finished: success (2m14s)", [SLACKHOOK3, SLK_SEC3],
  speaker="incoming-webhook %s" % SLACKHOOK3)
L("speaker_secret", "participant", "build green, merging", [XOXB2], speaker="ci-bot [%s]" % XOXB2)

# ---- AWS
L("aws_credentials", "user",
  "here are the keys for the backup bucket: %s / %s" % (AKIA1, AWSS1), [AKIA1, AWSS1])
L("aws_credentials", "assistant",
  "Exported AWS_ACCESS_KEY_ID=%s and AWS_SECRET_ACCESS_KEY=%s for this shell; the s3 sync should work now." % (AKIA2, AWSS2), [AKIA2, AWSS2])
L("aws_credentials", "tool",
  "$ cat ~/.aws/credentials\n[default]\naws_access_key_id = %s\naws_secret_access_key = %s\n\n[prod-readonly]\naws_access_key_id = %s\naws_secret_access_key = %s\nregion = eu-central-1" % (AKIA4, AWSS4, "AKIA" + "QX2M7TNB5LDWZRP4", "pL8v+Q2kR7x/MwZb0Tn4aYc1JfHs9EuDg6VoKi3e"),
  [AKIA4, AWSS4, "AKIAQX2M7TNB5LDWZRP4", "pL8v+Q2kR7x/MwZb0Tn4aYc1JfHs9EuDg6VoKi3e"])

# ---- tool outputs
ENV_DB = "postgres://billing:Tr3ble-Clef_61@pg-billing.internal:5432/billing"
L("env_dump", "tool",
  "$ printenv | sort\nDATABASE_URL=%s\nHOME=/home/app\nHOSTNAME=billing-7d9f8c6b5-xk2lp\nLANG=C.UTF-8\nOPENAI_API_KEY=%s\nPATH=/usr/local/bin:/usr/bin:/bin\nPORT=8080\nSENDGRID_API_KEY=%s\nTZ=UTC" % (ENV_DB, OA4, SG2),
  [ENV_DB, "Tr3ble-Clef_61", OA4, SG2])
L("docker_inspect_env", "tool",
  '$ docker inspect --format "{{json .Config.Env}}" pg-main\n["POSTGRES_USER=admin","POSTGRES_PASSWORD=Ch0pst1ck$Lagoon","REDIS_PASSWORD=b1ue-Heron-Fog","PGDATA=/var/lib/postgresql/data","PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin"]',
  ["Ch0pst1ck$Lagoon", "b1ue-Heron-Fog"])
L("yaml_config", "tool",
  "$ cat config/app.yaml\napp:\n  name: ledger-api\n  port: 8443\ndatabase:\n  host: pg-ledger.internal\n  user: ledger\n  password: \"Qu4rtz&Maple!77\"\nsmtp:\n  host: smtp.eu.mailgun.org\n  username: postmaster@mg.acme.io\n  password: 9f4c2e71ab38d5e6\ncache:\n  url: redis://:Sl0th-Cinder-22@redis-ledger:6379/0",
  ["Qu4rtz&Maple!77", "9f4c2e71ab38d5e6", "redis://:Sl0th-Cinder-22@redis-ledger:6379/0", "Sl0th-Cinder-22"])
L("npmrc_token", "tool",
  "$ cat ~/.npmrc\n//registry.npmjs.org/:_authToken=%s\n@acme:registry=https://npm.pkg.github.com/\n//npm.pkg.github.com/:_authToken=%s\nsave-exact=true" % (NPM1, GHP2),
  [NPM1, GHP2])
L("git_remote_token", "tool",
  "$ git remote -v\norigin\thttps://oauth2:%s@gitlab.com/acme/billing.git (fetch)\norigin\thttps://oauth2:%s@gitlab.com/acme/billing.git (push)\nupstream\tgit@gitlab.com:acme-oss/billing.git (fetch)" % (GLPAT, GLPAT),
  [GLPAT])
KPW = "Pgm4n!Xr_2025ledger"
KAPI = "live-7c1e9b0a44d2f38e"
L("kubectl_secret", "tool",
  "$ kubectl get secret payments-db -n payments -o yaml\napiVersion: v1\ndata:\n  api-key: %s\n  password: %s\n  username: %s\nkind: Secret\nmetadata:\n  name: payments-db\n  namespace: payments\ntype: Opaque" % (b64s(KAPI), b64s(KPW), b64s("payments")),
  [b64s(KAPI), b64s(KPW)])
L("kubectl_secret", "tool",
  "$ kubectl get secret grafana-admin -o jsonpath='{.data.admin-password}' | base64 -d\nW0lverine_Tide#3",
  ["W0lverine_Tide#3"])
L("private_key_openssh", "tool", "$ cat ~/.ssh/id_ed25519\n" + ED_PEM, [ED_PEM] + pem_lines(ED_PEM, [4, 5]))
L("private_key_pem", "user", "can you check why this key doesn't work with the sftp server?\n\n" + RSA_PEM,
  [RSA_PEM] + pem_lines(RSA_PEM, [6, 14, 22]))
body = "\n".join(PK8_PEM.splitlines()[1:-1])
L("private_key_body", "user", "here's the key body (i stripped the BEGIN/END lines because the form rejected them):\n" + body,
  [body] + pem_lines(PK8_PEM, [7, 16]))
L("private_key_pem", "system", "Webhook signing key (EC, PEM) for this deployment:\n" + EC_PEM, [EC_PEM] + pem_lines(EC_PEM, [2]))
gcp_key_json = GCP_PEM.replace("\n", "\\n") + "\\n"
gcp_lines = GCP_PEM.splitlines()
L("gcp_service_account", "tool",
  '$ cat sa-reporting.json\n{\n  "type": "service_account",\n  "project_id": "acme-analytics-prod",\n  "private_key_id": "%s",\n  "private_key": "%s",\n  "client_email": "reporting@acme-analytics-prod.iam.gserviceaccount.com",\n  "client_id": "104882913374650021843"\n}' % (GCP_KID, gcp_key_json),
  [gcp_key_json, GCP_KID, gcp_lines[9], gcp_lines[18]])
L("twilio_credentials", "tool",
  "$ cat .env\nNODE_ENV=production\nTWILIO_ACCOUNT_SID=%s\nTWILIO_AUTH_TOKEN=%s\nTWILIO_API_KEY=%s\nTWILIO_API_SECRET=%s\nREMINDER_CRON=0 9 * * *" % (TW_AC1, TW_TOK1, TW_SK, TW_SKSEC),
  [TW_TOK1, TW_SKSEC])
L("terraform_output", "tool",
  '$ terraform output -json\n{\n  "db_endpoint": {"sensitive": false, "type": "string", "value": "ledger.c9x2.eu-west-1.rds.amazonaws.com"},\n  "db_password": {"sensitive": true, "type": "string", "value": "Zx7!hollow-Pine-303"}\n}',
  ["Zx7!hollow-Pine-303"])
HK_DB = "postgres://u7fq2kd9a:p3b8c1e0f6a2d94c7e5b1a0d8f3c6e29b@ec2-34-250-11-9.eu-west-1.compute.amazonaws.com:5432/d8k2l1m"
L("env_dump", "tool",
  "$ heroku config -a crumb-bakery\n=== crumb-bakery Config Vars\nDATABASE_URL: %s\nMAILGUN_DOMAIN: mg.crumbbakery.co\nREDIS_URL:    redis://:Oyster!Lamp-19@redis-17702.c1.eu-west-1.ec2.cloud.redislabs.com:17702" % HK_DB,
  [HK_DB, "p3b8c1e0f6a2d94c7e5b1a0d8f3c6e29b", "redis://:Oyster!Lamp-19@redis-17702.c1.eu-west-1.ec2.cloud.redislabs.com:17702", "Oyster!Lamp-19"])
L("password_manager_cli", "tool", '$ op item get "Fidelity 401k" --fields label=username,label=password\nhlee_retire,%s' % OP_PW, [OP_PW])
L("shell_history", "tool",
  "$ tail -4 ~/.bash_history\ncd ~/src/infra\nexport GITHUB_TOKEN=%s\nmysql -uroot -pN1ghtj4r_Moth prod < dump.sql\ngit push origin main" % ("ghp_" + "Lm4Q9sTz7VbX2nKp8RwC5yHd3JfG6aE1oUiT0qZr"),
  ["ghp_Lm4Q9sTz7VbX2nKp8RwC5yHd3JfG6aE1oUiT0qZr", "N1ghtj4r_Moth"])
L("db_connection_string", "system",
  "[runtime config injected]\nDB_HOST=pg-main.internal\nDB_USER=assistant_ro\nDB_PASSWORD=R3adOnly_Kestrel#5\nUse read-only queries only.",
  ["R3adOnly_Kestrel#5"])
L("jwt_bearer", "participant", "if it helps, my session token from devtools: %s" % JWT3, [JWT3, JWT3SIG], speaker="Hannah")

# ================================================================ LOOKALIKES
K("password_manager", "user", "we switched the whole team to Dashlane last month and nobody misses the spreadsheet", ["Dashlane"])
K("password_manager", "participant", "reminder: everyone should have their Bitwarden vault set up by Friday", ["Bitwarden"], speaker="Nadia")
K("pin_hobby", "user", "my pin badge collection is huge now — over 300 enamel pins from national parks", ["enamel"])
K("token_limit", "user", "the context window on the model we use is 128k tokens, so long PDFs are fine", ["128k"])
K("token_limit", "system", "Model configuration: max_output_tokens=4096, temperature=0.2.", ["4096"])
K("git_sha", "tool", "$ git log --oneline -3\n9f3e2a1c7b Fix rounding in invoice totals\n4d81b06e2a Bump axios to 1.7.4\nc02f5e9d11 Add retry to webhook sender", ["9f3e2a1c7b"])
K("git_sha", "user", "the regression came in with commit 4d81b06e2a, reverting it fixed the build", ["4d81b06e2a"])
K("uuid_order_id", "user", "my order id is 3f6c2d1e-8a4b-4c7e-9b2f-6d1a0e5c7b93 and it still says processing after 9 days", ["3f6c2d1e-8a4b-4c7e-9b2f-6d1a0e5c7b93"])
K("semver", "user", "we're pinned to react 18.3.1 until the design system upgrades", ["18.3.1"])
K("cloud_region", "user", "all our prod workloads live in us-central1, DR is in europe-west4", ["us-central1"])
K("cron_schedule", "user", "the nightly backup cron is 0 3 * * * (3am UTC), it takes about 40 minutes", ["nightly"])
K("port_number", "user", "redis runs on port 6380 on the staging box, not the default", ["6380"])
K("port_number", "assistant", "Noted — Postgres on the new host listens on 5433 because 5432 is taken by the legacy cluster.", ["5433"])
K("mac_address", "user", "my thermostat's device id is the MAC 3C:71:BF:4A:09:E2, support asked for it", ["3C:71:BF:4A:09:E2"])
K("rotation_policy", "user", "our policy is to rotate API keys every 90 days and I'm the one who does it", ["rotate"])
K("password_policy", "user", "passwords must be at least 14 characters at work now, with no reuse of the last 5", ["14"])
K("phone_extension", "user", "my desk extension is x4471, call me there instead of my mobile", ["4471"])
K("booking_reference", "user", "flight booking reference is QZ7K4P, Lisbon on the 12th, window seat", ["QZ7K4P"])
K("hex_colour", "user", "our brand primary is #1A73E8 and the accent is #FFB300", ["#1A73E8"])
K("download_checksum", "tool",
  "$ sha256sum ubuntu-24.04.2-desktop-amd64.iso\nd7fe3d6a0419667d2f8eff12796996328daa2d4f90cd9f87aa9371b362f987bf  ubuntu-24.04.2-desktop-amd64.iso",
  ["ubuntu-24.04.2"])
K("locker_number", "user", "my locker number is 217 at the climbing gym, second row", ["217"])
K("gpg_key_id", "user", "my public GPG key id is 0x4AEE18F83AFDEB23, it's on keys.openpgp.org if you want to encrypt stuff to me", ["4AEE18F83AFDEB23"])
K("password_mention", "user", "I reset my password yesterday, finally using a long passphrase instead of my dog's name", ["passphrase"])
K("employee_number", "user", "my employee number is 30418, HR needs it on the form", ["30418"])
K("wifi_name_only", "user", "the office wifi network is called BlueFin_Office, the guest one is separate", ["BlueFin_Office"])
K("hardware_key", "user", "I use a YubiKey 5C NFC for 2FA now, keeping a spare one in the safe", ["YubiKey"])
K("keynote", "participant", "the keynote is at 9:30 in hall B, then the security track after lunch", ["keynote"], speaker="Ola")
K("tracking_number", "user", "the UPS tracking number is 1Z999AA10123456784, should arrive Tuesday", ["1Z999AA10123456784"])
K("isbn", "user", "the book club pick is ISBN 978-0-13-468599-1, Effective Java", ["978-0-13-468599-1"])
K("k8s_namespace", "assistant", "I'll deploy the canary into the payments-prod namespace with 2 replicas.", ["payments-prod"])
K("private_ip", "user", "my NAS is at 192.168.1.40 on the home network", ["192.168.1.40"])
K("secret_ingredient", "user", "the secret ingredient in my chili is smoked paprika, don't tell my brother", ["paprika"])
K("subway_tokens", "user", "I collect old subway tokens from the NYC system, got a 1953 one last week", ["subway"])
K("pin_changed", "user", "I finally changed my bank PIN after the card got skimmed at the gas station", ["skimmed"])
K("vault_path", "assistant", "We keep the payment secrets in HashiCorp Vault, mounted at secret/data/payments; access goes through the platform team.", ["Vault"])
K("public_client_id", "user", "the OAuth client_id for the public web app is web-portal-prod (that one isn't secret)", ["web-portal-prod"])
K("card_last4", "user", "the card ending 4417 got declined at the pharmacy again", ["4417"])
K("iban_format", "user", "a German IBAN is 22 characters long, I keep mistyping them", ["22"])
K("batch_number", "user", "the 6-digit code printed on the vaccine box is the batch number 448211, pharmacist wrote it down", ["448211"])
K("ticket_id", "participant", "I opened PAY-4821 for the refund bug, assigned to Rui", ["PAY-4821"], speaker="Marta")
K("cache_key", "tool", "Restored cache from key: node-modules-v3-linux-8f2c1a (hit)", ["node-modules-v3-linux"])
K("password_generator_cmd", "user", "I generate passwords with `openssl rand -base64 24` and store them straight in the vault", ["openssl"])
K("amazon_ami", "tool", "$ aws ec2 describe-images --image-ids ami-0c7217cdde317cfec --query 'Images[0].Name'\n\"ubuntu/images/hvm-ssd/ubuntu-jammy-22.04-amd64-server-20240207\"", ["ami-0c7217cdde317cfec"])
K("postcode", "user", "our new office postcode is EC2A 4NE, right by the station", ["EC2A"])
K("docker_digest", "tool", "Pulled nginx:1.27.0@sha256:97b83c73d3165f2deb95e02459a6e905f092260cd991f4c4eae2f192ddb99cbe", ["nginx:1.27.0"])

with open("/work/evalsets/secrets_heldout/secrets.jsonl", "w", encoding="utf-8") as f:
    for r in records:
        f.write(json.dumps(r, ensure_ascii=False) + "\n")
print(counter)
