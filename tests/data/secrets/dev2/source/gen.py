import json, random, string, base64, hashlib, os
from mnemonic import Mnemonic

rng = random.Random(20250917)
ALNUM = string.ascii_letters + string.digits
URLSAFE = ALNUM + "-_"
HEX = "0123456789abcdef"

def rs(n, alpha=ALNUM):
    return "".join(rng.choice(alpha) for _ in range(n))
def hx(n):
    return rs(n, HEX)
def b64nopad(nbytes):
    return base64.b64encode(rng.randbytes(nbytes)).decode().rstrip("=")
def b64url(b):
    return base64.urlsafe_b64encode(b).decode().rstrip("=")
def uuid4():
    h = hx(32)
    h = h[:12] + "4" + h[13:16] + rng.choice("89ab") + h[17:]
    return f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}"
def isbn13(prefix12):
    d = [int(c) for c in prefix12 if c.isdigit()]
    s = sum(x * (1 if i % 2 == 0 else 3) for i, x in enumerate(d))
    return str((10 - s % 10) % 10)

OFFSETS = ["+00:00", "+01:00", "+02:00", "-05:00", "-08:00", "+09:00", "+05:30", "-03:00", "-04:00", "+10:00"]
def ts():
    m = rng.randint(1, 12); d = rng.randint(1, 28)
    return f"2025-{m:02d}-{d:02d}T{rng.randint(0,23):02d}:{rng.randint(0,59):02d}:{rng.randint(0,59):02d}{rng.choice(OFFSETS)}"
def conv():
    return "c-" + hx(10)

# ---------------------------------------------------------------- generated public-ish values
g_digest = hx(64)
g_iso = hx(64)
g_md5 = hx(32)
g_tf = hx(64)
g_sha40 = "9e8d1b7c4a2f06e35d9b8c71a0f4e2d6b3c5a918"
g_ami = "ami-0" + hx(16)
g_uuid1 = uuid4(); g_uuid2 = uuid4()
g_fp = "SHA256:" + b64nopad(32)
g_sri = "sha384-" + base64.b64encode(rng.randbytes(48)).decode()
g_isbn1 = "978-0-14-303943-" + isbn13("978014303943")
g_isbn2 = "978149205220" + isbn13("978149205220")
g_yt = rs(11, URLSAFE)

# ---------------------------------------------------------------- look-alikes
# (family, role, speaker, scope, owner, content, keep)
L = [
 # password_manager (6)
 ("password_manager","user",None,"personal","u-lena",
  "fyi for future me: all the family logins live in 1Password now, the shared vault is called 'Kowalski Home'. i stopped using the browsers built-in thing bc it kept syncing to my work profile, which was... not great",
  ["1Password"]),
 ("password_manager","participant","Jonas Weber","project","u-tomas",
  "kurze info: wir haben jetzt alle zugangsdaten in KeePassXC, die datenbank liegt auf dem NAS unter /team/it. das master-passwort hat nur anja, also fragt sie bitte direkt und nicht im chat",
  ["KeePassXC"]),
 ("password_manager","user",None,"personal","u-marco",
  "bon, j'ai enfin migré de LastPass vers Bitwarden, le mot de passe du wifi est dedans aussi (collection 'maison'). rappelle-moi de résilier lastpass avant le 3 mars stp",
  ["Bitwarden"]),
 ("password_manager","user",None,"personal","u-priya",
  "las contraseñas del trabajo las guardo en Proton Pass y las personales en el llavero de icloud, no me preguntes por qué, es un lío pero funciona",
  ["Proton Pass"]),
 ("password_manager","assistant",None,"project","u-aiko",
  "Got it — I'll remember that your team keeps backend service credentials in Doppler and the SaaS logins in Dashlane, and that nobody should paste either into chat.",
  ["Doppler","Dashlane"]),
 ("password_manager","participant","Priya Nair","project","u-marco",
  "password is stored in the vault, NOT in the ticket!! i moved it to HashiCorp Vault under the payments namespace this morning, ask in #sec-help if u need access",
  ["HashiCorp Vault"]),
 # token_limit (4)
 ("token_limit","user",None,"project","u-priya",
  "note: we're on the 200k context window model for the summariser, but we cap max_tokens at 4096 on the output side otherwise latency goes nuts",
  ["200k","4096"]),
 ("token_limit","participant","Tomás Herrera","project","u-tomas",
  "heads up the embedding model only takes 8191 tokens per input so the chunker splits at ~8000 to be safe. pls dont change that again, it broke ingestion last time",
  ["8191"]),
 ("token_limit","assistant",None,"project","u-aiko",
  "Noted: the token_limit for the support bot is 32768, and the system prompt alone uses roughly 1,200 of those.",
  ["32768"]),
 # port_number (3)
 ("port_number","user",None,"project","u-marco",
  "our prod db runs on port 6543 bc pgbouncer sits in front, the raw postgres on 5432 is only reachable from the bastion. keep that in mind when u write the runbook",
  ["6543","pgbouncer"]),
 ("port_number","participant","Aiko Tanaka","project","u-priya",
  "grafana moved to 3300 since 3000 clashes with the node app, ok? i already updated the nginx conf, just bookmark the new one",
  ["3300","grafana"]),
 ("port_number","assistant",None,"project","u-tomas",
  "I'll remember that the staging Kafka brokers listen on 9094 for TLS and on 9092 for plaintext inside the cluster only.",
  ["9094"]),
 # cloud_region (3)
 ("cloud_region","user",None,"project","u-lena",
  "we're deploying to eu-west-3 from now on (paris) — legal wants the data in france. the old stuff in us-east-1 gets decommissioned sometime in q3 i think",
  ["eu-west-3"]),
 ("cloud_region","participant","Marco Ruiz","project","u-aiko",
  "the rds replica is in use1-az4 specifically, not az6. that matters for the cross-az bill so pls dont let terraform move it",
  ["use1-az4"]),
 ("cloud_region","user",None,"project","u-tomas",
  "gcp project runs in europe-west4, zones a and b. i think c was the one with the outage last year? anyway we avoid it",
  ["europe-west4"]),
 # git_sha (3)
 ("git_sha","user",None,"project","u-marco",
  "last known good deploy was commit 3f9a2c1, everything after that breaks the checkout flow. gonna bisect tmrw morning unless someone beats me to it",
  ["3f9a2c1"]),
 ("git_sha","participant","Lena Kowalski","project","u-priya",
  f"release 4.2.0 is tagged at {g_sha40} — full sha here in case someone force-moves the tag again 🙄",
  [g_sha40]),
 ("git_sha","assistant",None,"project","u-lena",
  "Understood — the hotfix branch is based on a41c09e, and the revert you want to keep is b7d2e55.",
  ["a41c09e","b7d2e55"]),
 # docker_image (2)
 ("docker_image","user",None,"project","u-aiko",
  f"we pin the base image by digest now: python:3.12-slim@sha256:{g_digest} so renovate cant sneak updates in behind our backs",
  ["python:3.12-slim", g_digest]),
 ("docker_image","participant","Tomás Herrera","project","u-marco",
  "prod is running ghcr.io/acme/billing-api:2025.06.3 , staging is on :2025.07.0-rc1 — dont promote the rc before the load test",
  ["2025.06.3"]),
 # download_checksum (3)
 ("download_checksum","user",None,"personal","u-tomas",
  f"the ubuntu 24.04.2 iso i downloaded has sha256 {g_iso}, matches the SHA256SUMS file so we're good to flash it",
  [g_iso]),
 ("download_checksum","participant","Aiko Tanaka","project","u-lena",
  f"checksum for the firmware blob (v3.1.4) is md5 {g_md5}, vendor only publishes md5 ugh. its the one we approved for the gateways",
  [g_md5]),
 ("download_checksum","assistant",None,"project","u-priya",
  f"I'll keep a note that the approved Terraform 1.9.8 zip for linux_amd64 has SHA-256 {g_tf}.",
  [g_tf]),
 # amazon_ami (2)
 ("amazon_ami","user",None,"project","u-marco",
  f"golden ami for the workers is {g_ami} in eu-central-1, packer rebuilds it every monday so the id changes weekly-ish",
  [g_ami]),
 ("amazon_ami","participant","Marco Ruiz","project","u-aiko",
  "careful, ami-0c55b159cbfafe1f0 is the old amazon linux 2 image, the new al2023 one we use is ami-08f7912c15ca96832",
  ["ami-08f7912c15ca96832"]),
 # batch_lot (2)
 ("batch_lot","user",None,"personal","u-priya",
  "the recalled baby formula was lot 24317B-K, ours is lot 24402A so i think were fine?? will double check the can when i get home",
  ["24402A"]),
 ("batch_lot","user",None,"personal","u-lena",
  "my vaccine card says batch FK8891, second dose was 14 july. writing it down for the travel paperwork",
  ["FK8891"]),
 # card_last4 (3)
 ("card_last4","user",None,"personal","u-tomas",
  "netflix is billed to the card ending in 4821, spotify to the amex ending 1007. i keep mixing up which is which",
  ["4821","1007"]),
 ("card_last4","participant","Priya Nair","project","u-marco",
  "company card (visa, last four 9034) is only for aws + github, everything else goes through expensify pls",
  ["9034"]),
 ("card_last4","user",None,"personal","u-aiko",
  "the refund went to my debit card ending ****6612, took like 5 business days but it's there",
  ["6612"]),
 # vault_path (3)
 ("vault_path","user",None,"project","u-priya",
  "the stripe creds live at secret/data/payments/stripe in vault, the key name is `api_key`. the app reads them thru the agent sidecar, nobody should need them locally",
  ["secret/data/payments/stripe"]),
 ("vault_path","participant","Jonas Weber","project","u-tomas",
  "db creds moved from kv/legacy/db to secret/data/platform/postgres-prod, the old path stays read-only until friday then it's gone",
  ["secret/data/platform/postgres-prod"]),
 ("vault_path","assistant",None,"project","u-lena",
  "Noted: the CI pipeline pulls the deploy key from secret/ci/github-deploy via the ci-reader role, and rotation is handled by the vault team.",
  ["secret/ci/github-deploy"]),
 # uuid_request_id (3)
 ("uuid_request_id","user",None,"personal","u-marco",
  f"support asked for the request id of the failed upload: {g_uuid1} . ticket is still open, they said 48h",
  [g_uuid1]),
 ("uuid_request_id","participant","Lena Kowalski","project","u-aiko",
  f"our tenant id in the azure portal is {g_uuid2}, its the eu org one, not the us one. people keep confusing them",
  [g_uuid2]),
 ("uuid_request_id","user",None,"project","u-priya",
  "x-request-id was req_8Kz2mQ4vN7pL1xR9 from the billing api, they said it's a known bug on their side and a fix ships next week",
  ["req_8Kz2mQ4vN7pL1xR9"]),
 # order_tracking (3)
 ("order_tracking","user",None,"personal","u-lena",
  "ordered the standing desk finally, amazon order #112-4839201-7734125, should arrive thursday if they dont mess it up",
  ["112-4839201-7734125"]),
 ("order_tracking","user",None,"personal","u-tomas",
  "dhl tracking JD014600006281930127 still says 'in transit' since monday wtf. its the new monitor",
  ["JD014600006281930127"]),
 ("order_tracking","participant","Aiko Tanaka","project","u-priya",
  "the ups one is 1Z999AA10123456784, signed for by reception at 11:20, it's the replacement switch",
  ["1Z999AA10123456784"]),
 # flight_booking (3)
 ("flight_booking","user",None,"personal","u-aiko",
  "my flight BA0287 lands at 7 at sfo, then i'll take caltrain. booking ref is QX7M2P if the hotel asks, they sometimes do",
  ["BA0287","QX7M2P"]),
 ("flight_booking","participant","Tomás Herrera","personal","u-tomas",
  "reservé el vuelo IB3166 a madrid, sale el 12 a las 6:40 (ugh), el localizador es ZK4T9B por si acaso",
  ["IB3166"]),
 ("flight_booking","assistant",None,"personal","u-lena",
  "I'll remember your Deutsche Bahn booking: ICE 597 from Frankfurt to Munich on 3 October, coach 7, seat 45.",
  ["ICE 597"]),
 # isbn (2)
 ("isbn","user",None,"personal","u-priya",
  f"book club pick is isbn {g_isbn1}, get the penguin edition not the illustrated one, page numbers differ",
  [g_isbn1]),
 ("isbn","participant","Priya Nair","project","u-marco",
  f"ISBN {g_isbn2} is the one on my desk, the oreilly one. i think? anyway borrow it whenever",
  [g_isbn2]),
 # phone_extension (2)
 ("phone_extension","user",None,"project","u-marco",
  "reception at the new office is +1 415 555 0132 ext. 2207, ask for facilities if the badge reader acts up again",
  ["2207"]),
 ("phone_extension","participant","Marco Ruiz","project","u-lena",
  "il mio interno è il 418, se non rispondo prova il 400 che è il centralino",
  ["418"]),
 # postal_code (3)
 ("postal_code","user",None,"personal","u-aiko",
  "we moved!! new zip is 94110 (mission), update the shipping default pls, the old 94103 one is dead",
  ["94110"]),
 ("postal_code","user",None,"personal","u-tomas",
  "plz für die neue wohnung ist 10437, prenzlauer berg. umzug war chaos aber egal",
  ["10437"]),
 ("postal_code","participant","Lena Kowalski","project","u-priya",
  "office postcode is EC2A 4NE, the old one (N1 7GU) still shows up on google for some reason",
  ["EC2A 4NE"]),
 # serial_number (2)
 ("serial_number","user",None,"personal","u-lena",
  "laptop serial C02XG2JHJG5H for the warranty claim, apple said it's covered till nov",
  ["C02XG2JHJG5H"]),
 ("serial_number","user",None,"personal","u-marco",
  "the nas is a synology ds920+, s/n 2180PDN123456, bought in 2021 so warranty is prob over",
  ["2180PDN123456"]),
 # license_plate (2)
 ("license_plate","user",None,"personal","u-priya",
  "my car is the grey golf, plate B-KW 4471, the residents parking permit is registered to it",
  ["B-KW 4471"]),
 ("license_plate","participant","Aiko Tanaka","project","u-tomas",
  "company van plate is 7XKD221 (california), its in spot 14 in the garage, keys at reception",
  ["7XKD221"]),
 # version_number (2)
 ("version_number","user",None,"project","u-aiko",
  "we're stuck on node 18.19.1 because of the sharp binary, the upgrade to 22 is blocked till that's fixed upstream",
  ["18.19.1"]),
 ("version_number","assistant",None,"project","u-marco",
  "I'll remember that the mobile app's minimum supported iOS version is 16.4 and the current release is 3.18.2 (build 4471).",
  ["3.18.2"]),
 # public_ip (2)
 ("public_ip","user",None,"project","u-tomas",
  "our dns resolvers are 1.1.1.1 and 9.9.9.9 now, we dropped 8.8.8.8 after the privacy review",
  ["9.9.9.9"]),
 ("public_ip","participant","Marco Ruiz","project","u-lena",
  "the public lb for the api is 203.0.113.45, customers allowlist that exact ip so it must NOT change when we migrate",
  ["203.0.113.45"]),
 # hex_colour (2)
 ("hex_colour","user",None,"project","u-priya",
  "brand colours: primary #1E3A8A, accent #F59E0B. the designer was very clear the accent is NOT #F5A623 lol",
  ["#1E3A8A","#F59E0B"]),
 ("hex_colour","participant","Priya Nair","project","u-aiko",
  "dark mode bg is #0d1117 and text #c9d1d9, basically stole githubs palette, nobody will notice",
  ["#0d1117"]),
 # coordinates (2)
 ("coordinates","user",None,"personal","u-marco",
  "the cabin is at 46.5547, 7.9802 — theres no street address, google maps gets u there tho",
  ["46.5547"]),
 ("coordinates","user",None,"personal","u-lena",
  "meeting point for the hike: 37°44'58.1\"N 119°35'49.0\"W (trailhead parking), be there by 6",
  ["37°44'58.1"]),
 # mac_address (2)
 ("mac_address","user",None,"personal","u-aiko",
  "my laptop's wifi mac is a4:83:e7:2b:9c:10, i added it to the router's allowlist so it should just connect",
  ["a4:83:e7:2b:9c:10"]),
 ("mac_address","participant","Tomás Herrera","project","u-priya",
  "the printer has mac 00:1B:A9:4E:72:C3 and a reserved dhcp lease on .50, dont give that ip to anything else",
  ["00:1B:A9:4E:72:C3"]),
 # rate_limit (3)
 ("rate_limit","user",None,"project","u-lena",
  "github api limit is 5000 requests/hour with the app token, and we hit it around 2pm every day, kinda embarrassing",
  ["5000"]),
 ("rate_limit","assistant",None,"project","u-tomas",
  "Noted: the partner API allows 100 requests per minute per key, with bursts up to 20 per second.",
  ["100 requests per minute"]),
 ("rate_limit","participant","Aiko Tanaka","project","u-marco",
  "tier 3 gives us 5,000 RPM on the mini model, so dont run the backfill during business hrs or support bot dies",
  ["5,000 RPM"]),
 # key_name (4)
 ("key_name","user",None,"project","u-marco",
  "the env var is STRIPE_SECRET_KEY, not STRIPE_API_KEY — thats why the worker was crashing on boot. fixed the helm chart",
  ["STRIPE_SECRET_KEY"]),
 ("key_name","participant","Jonas Weber","project","u-lena",
  "set DATABASE_PASSWORD in the render dashboard, not in the repo. the name has to match exactly or the app falls back to sqlite",
  ["DATABASE_PASSWORD"]),
 ("key_name","user",None,"project","u-priya",
  "our gh actions secret is called PROD_DEPLOY_TOKEN, it's org-level so every repo can see it, which i'm not thrilled about",
  ["PROD_DEPLOY_TOKEN"]),
 ("key_name","assistant",None,"project","u-aiko",
  "I'll remember that the checkout Lambda reads its key from the SSM parameter /prod/checkout/OPENAI_API_KEY.",
  ["OPENAI_API_KEY"]),
 # password_policy (3)
 ("password_policy","user",None,"project","u-tomas",
  "password policy requires 12 characters min + one symbol, and it expires every 90 days which is honestly annoying",
  ["12 characters"]),
 ("password_policy","participant","Lena Kowalski","project","u-marco",
  "die neue richtlinie: passwörter mindestens 14 zeichen, keine wiederverwendung der letzten 5. gilt ab montag",
  ["14 zeichen"]),
 ("password_policy","assistant",None,"project","u-priya",
  "Got it: your org enforces a 6-digit PIN on company phones, and biometric unlock is allowed on top of that.",
  ["6-digit PIN"]),
 # rotation_no_value (3)
 ("rotation_no_value","user",None,"personal","u-aiko",
  "i rotated my api key yesterday after the leak scare, the old one is revoked. nothing to do on your end, just fyi",
  ["rotated"]),
 ("rotation_no_value","participant","Marco Ruiz","project","u-tomas",
  "changed the office wifi password this morning, the new one is on the whiteboard in the kitchen (not posting it here obv)",
  ["whiteboard"]),
 ("rotation_no_value","user",None,"personal","u-lena",
  "reset my bank pin at the branch today, they made me type the new one on their keypad so all good",
  ["bank pin"]),
 # ssh_fingerprint (2)
 ("ssh_fingerprint","user",None,"project","u-priya",
  "githubs ed25519 host key fingerprint is SHA256:+DiY3wvvV6TuJJhbpZisF/zLDA0zPMSvHdkr4UvCOqU — check it matches before u type yes",
  ["SHA256:+DiY3wvvV6TuJJhbpZisF/zLDA0zPMSvHdkr4UvCOqU"]),
 ("ssh_fingerprint","participant","Priya Nair","project","u-aiko",
  f"my ssh key is ed25519, fingerprint {g_fp} — add the pub key to the deploy server pls, its the one from the new laptop",
  [g_fp]),
 # pgp_key_id (2)
 ("pgp_key_id","user",None,"personal","u-tomas",
  "my pgp key id is 0x9A3C5E71B2D48F06, it's on keys.openpgp.org if u need to encrypt stuff to me",
  ["0x9A3C5E71B2D48F06"]),
 ("pgp_key_id","participant","Jonas Weber","project","u-marco",
  "release tarballs are signed with 4F2A 9C1E 77B3 0D58 E6A1  2B94 C3D7 5E08 91FA 6C2B, verify before installing, esp. on the prod boxes",
  ["91FA 6C2B"]),
 # wifi_name (2)
 ("wifi_name","user",None,"personal","u-marco",
  "home wifi is called TellMyWifiLoveHer (yes really), the 5ghz band is TellMyWifiLoveHer_5G. use the 5g one for the tv",
  ["TellMyWifiLoveHer"]),
 ("wifi_name","participant","Aiko Tanaka","project","u-lena",
  "guest network at the office is ACME-Guest, it's the captive portal one, no password just click accept",
  ["ACME-Guest"]),
 # username_handle (2)
 ("username_handle","user",None,"personal","u-priya",
  "my github handle is priya-n-dev and on mastodon i'm @priyan@hachyderm.io, if anyone asks for socials",
  ["priya-n-dev"]),
 ("username_handle","participant","Tomás Herrera","project","u-tomas",
  "login is tomas.herrera on jira, not my email, they migrated the sso last week",
  ["tomas.herrera"]),
 # chemistry_bio (3)
 ("chemistry_bio","user",None,"project","u-lena",
  "the compound we're testing against is CC(=O)Oc1ccccc1C(=O)O (aspirin basically, its the control)",
  ["CC(=O)Oc1ccccc1C(=O)O"]),
 ("chemistry_bio","participant","Lena Kowalski","project","u-priya",
  "InChIKey for caffeine is RYYVLZVUVIJVGH-UHFFFAOYSA-N, use that for the db lookup not the name, names are a mess",
  ["RYYVLZVUVIJVGH-UHFFFAOYSA-N"]),
 ("chemistry_bio","user",None,"project","u-aiko",
  "for the thesis i'm using ATGGCCAAGCTGACCGGTTAA as the test gene fragment, primer tm is around 58°C",
  ["ATGGCCAAGCTGACCGGTTAA"]),
 # public_id (3)
 ("public_id","user",None,"project","u-tomas",
  f"the onboarding video is https://youtu.be/{g_yt} , link that in the wiki pls, its unlisted but not private",
  [g_yt]),
 ("public_id","participant","Marco Ruiz","project","u-marco",
  "focus playlist for the office: spotify:playlist:37i9dQZF1DWZeKCadgRdKQ (deep focus), pls stop putting metal on it",
  ["spotify:playlist:37i9dQZF1DWZeKCadgRdKQ"]),
 ("public_id","user",None,"project","u-priya",
  "our shared read-only sheet id is 1BxiMVs0XRA5nFMdKvBdBZjgmUUqptlbs74OgvE2upms, anyone with the link can view, it's meant to be public",
  ["1BxiMVs0XRA5nFMdKvBdBZjgmUUqptlbs74OgvE2upms"]),
 # sports_score (2)
 ("sports_score","user",None,"personal","u-lena",
  "we won 3-2 in the final!! sunday league, i scored the second one. next season starts sept 7",
  ["3-2"]),
 ("sports_score","participant","Aiko Tanaka","personal","u-aiko",
  "bowling night result: 187 for me, new personal best. beat jonas by 40 lol",
  ["187"]),
 # room_gate (2)
 ("room_gate","user",None,"project","u-marco",
  "the offsite is in room 4.17 on the fourth floor, badge access only after 6pm so come early",
  ["4.17"]),
 ("room_gate","user",None,"personal","u-tomas",
  "boarding at gate B42 in munich, apparently it's a bus gate so i should get there early",
  ["B42"]),
 # bank_public_code (2)
 ("bank_public_code","user",None,"project","u-lena",
  "for the invoice: our bank is commerzbank, BIC COBADEFFXXX. the iban is in the pdf footer, dont retype it",
  ["COBADEFFXXX"]),
 ("bank_public_code","participant","Lena Kowalski","project","u-tomas",
  "the ABA routing number for chase ny is 021000021 — thats public, it's printed on every check, so fine to put it in the form",
  ["021000021"]),
 # two_factor_mention (2)
 ("two_factor_mention","user",None,"personal","u-priya",
  "moved all my 2fa to a yubikey 5c nfc, with Aegis on android as backup. got rid of sms codes entirely",
  ["yubikey","Aegis"]),
 ("two_factor_mention","assistant",None,"personal","u-marco",
  "Noted: your bank sends one-time codes by SMS, they are 6 digits long and expire after 5 minutes.",
  ["6 digits"]),
 # sri_integrity (1)
 ("sri_integrity","user",None,"project","u-aiko",
  f"the cdn script tag uses integrity=\"{g_sri}\" for bootstrap 5.3, dont drop it when u refactor the layout",
  [g_sri]),
 # error_code (1)
 ("error_code","participant","Tomás Herrera","project","u-priya",
  "windows update keeps failing with 0x800f0922 on the reception pc, forum says its the vpn client, will uninstall friday",
  ["0x800f0922"]),
]

# ---------------------------------------------------------------- leaks
def aws_id(): return "AKIA" + rs(16, string.ascii_uppercase + "234567")
def aws_secret(): return rs(40, ALNUM + "/+")
mn = Mnemonic("english")
seed1 = mn.to_mnemonic(rng.randbytes(16))
seed2 = mn.to_mnemonic(rng.randbytes(16))
s1w = seed1.split(); s2w = seed2.split()
seed2_comma = ", ".join(s2w)

k_openai = "sk-proj-" + rs(58, URLSAFE) + "T3BlbkFJ" + rs(58, URLSAFE)
k_anth = "sk-ant-api03-" + rs(93, URLSAFE) + "-" + rs(6, URLSAFE) + "AA"
k_aid, k_asec = aws_id(), aws_secret()
k_ghp = "ghp_" + rs(36)
k_stripe = "sk_live_51" + rs(96)
slk_t = "T" + rs(8, string.ascii_uppercase + string.digits)
slk_b = "B" + rs(10, string.ascii_uppercase + string.digits)
slk_tok = rs(24)
k_slack = f"https://hooks.slack.com/services/{slk_t}/{slk_b}/{slk_tok}"
k_google = "AIza" + rs(35, URLSAFE)
pg_pw = "9vTq2LmX84pRwZ"
k_pg = f"postgres://app_rw:{pg_pw}@ec2-52-17-88-103.eu-west-1.compute.amazonaws.com:5432/d4b8kq1"
mg_pw = "Gr33nTea-Kettle"
k_mg = f"mongodb+srv://analyst:{mg_pw}@cluster0.x7k2p.mongodb.net/events?retryWrites=true"
rd_pw = "Xk3vN8qT2wLm9"
k_rd = f"redis://default:{rd_pw}@redis-14022.c1.eu-west-1-2.ec2.cloud.redislabs.com:14022"
gh_codes = [f"{hx(5)}-{hx(5)}" for _ in range(6)]
k_jwtsec = hx(64)
k_hf = "hf_" + rs(34, string.ascii_letters)
sg_a, sg_b = rs(22, URLSAFE), rs(43, URLSAFE)
k_sg = f"SG.{sg_a}.{sg_b}"
jwt_payload = b64url(json.dumps({"sub": "u_48213", "email": "marco@acme.io", "role": "admin", "iat": 1751328000, "exp": 1751414400}, separators=(",", ":")).encode())
k_jwt = "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9." + jwt_payload + "." + b64url(rng.randbytes(32))

# (family, role, speaker, scope, owner, content, secrets, extra)
S = [
 ("prose_password_en","user",None,"personal","u-lena",
  "ugh new router finally set up. admin pw i picked is purple-Otter-1987! — wrote it on the box too but the box is going in the recyling lol so remember it for me",
  ["purple-Otter-1987!"], {}),
 ("prose_password_en","participant","Jonas Weber","project","u-tomas",
  "ok shared gmail for the shop stand: weber.stand24@gmail.com , pass is Kirschbaum_2024 , pls chnage it after the fair is over",
  ["Kirschbaum_2024"], {}),
 ("prose_password_en","assistant",None,"project","u-marco",
  "Sure — noted that the staging admin login is `admin` with password St@ging-Adm1n-77, and that you want it rotated right after the demo on friday.",
  ["St@ging-Adm1n-77"], {}),
 ("prose_password_intl","user",None,"personal","u-tomas",
  "mein passwort fürs elster-konto ist Sonnenblume!72 … falls ich's wieder vergesse. die zertifikatsdatei liegt im downloads ordner",
  ["Sonnenblume!72"], {}),
 ("prose_password_intl","participant","Camille Durand","personal","u-marco",
  "le code wifi chez mamie c'est Jardin2Roses avec un J majuscule, elle l'oublie tout le temps donc garde-le stp",
  ["Jardin2Roses"], {}),
 ("prose_password_intl","participant","Tomás Herrera","project","u-priya",
  "oye la clave del portal de proveedores es Mx7!perro-azul y el usuario compras@herrera.mx, no se la pases a nadie de fuera porfa",
  ["Mx7!perro-azul"], {}),
 ("prose_password_intl","user",None,"personal","u-aiko",
  "la password del nas è gattoNero#55 (con la N maiuscola), non dirla a luca che poi ci mette i suoi film",
  ["gattoNero#55"], {}),
 ("openai_key","user",None,"project","u-priya",
  f"why does this 401?? i did\nexport OPENAI_API_KEY={k_openai}\npython embed.py --batch 64\nand it says invalid key. maybe trailing whitespace?",
  [k_openai], {}),
 ("anthropic_key","participant","Aiko Tanaka","project","u-lena",
  f"heres the team key for the hackathon, pls dont commit it anywhere: {k_anth} — it has a $50 cap so no big deal if it dies",
  [k_anth], {}),
 ("aws_key","user",None,"project","u-marco",
  f"can u check whats wrong with my creds file\n[default]\naws_access_key_id = {k_aid}\naws_secret_access_key = {k_asec}\nregion = eu-west-3\n\nthe cli keeps saying SignatureDoesNotMatch",
  [k_aid, k_asec], {}),
 ("github_token","user",None,"personal","u-lena",
  f"pushing from the build box with git remote set-url origin https://{k_ghp}@github.com/lena-k/dotfiles.git bc ssh agent forwarding was being weird, works now",
  [k_ghp], {}),
 ("stripe_key","participant","Marco Ruiz","project","u-aiko",
  f"stripe live key for the popup store checkout: {k_stripe} , put it in STRIPE_SECRET_KEY on render and we're done",
  [k_stripe], {}),
 ("slack_webhook","assistant",None,"project","u-tomas",
  f"Here's the curl you asked for:\ncurl -X POST -H 'Content-type: application/json' --data '{{\"text\":\"deploy done\"}}' {k_slack}",
  [k_slack, slk_tok], {}),
 ("google_api_key","user",None,"project","u-priya",
  f"maps embed works now!! key is {k_google} restricted to localhost for now, need to add the prod domain later",
  [k_google], {}),
 ("connection_string","user",None,"project","u-aiko",
  f"this is the string from heroku, is the sslmode part wrong or what? {k_pg} — psql connects fine but the app doesnt",
  [k_pg, pg_pw], {}),
 ("connection_string","participant","Priya Nair","project","u-marco",
  f"use this for the analytics notebook: {k_mg} — its a read only user so dont panic",
  [k_mg, mg_pw], {}),
 ("connection_string","assistant",None,"project","u-lena",
  f"Your config should read `REDIS_URL={k_rd}` — I've added the missing colon before the port.",
  [k_rd, rd_pw], {}),
 ("otp_code","user",None,"personal","u-tomas",
  "ok the bank just texted me 739204, can you paste it into the form for me before it expires? 10 min limit",
  ["739204"], {}),
 ("otp_code","user",None,"personal","u-priya",
  "saving my github recovery codes here bc i lose everything:\n" + "\n".join(gh_codes) + "\nthe printed copy is in the drawer too",
  gh_codes, {}),
 ("pin_code","user",None,"personal","u-marco",
  "new debit card came, pin is 0614 — same as the old one before they forced the change, dont ask",
  ["0614"], {}),
 ("pin_code","participant","Jonas Weber","project","u-lena",
  "alarmanlage im büro: code 9371 und dann AUS drücken, sonst geht nach 30 sek die sirene los. bitte nicht weitersagen",
  ["9371"], {}),
 ("credit_card","user",None,"personal","u-priya",
  "can u fill the checkout for the conference ticket? card 5555 5555 5555 4444, exp 09/27, name on card priya nair",
  ["5555 5555 5555 4444"], {}),
 ("credit_card","participant","Marco Ruiz","project","u-tomas",
  "corporate amex for the booking: 3782 822463 10005 exp 11/26, its in my name. pls book the hotel before noon",
  ["3782 822463 10005"], {}),
 ("credit_card","user",None,"project","u-aiko",
  'this payload gets rejected by the sandbox, why?\n{"customer":"cus_Q1w2e3","payment_method":{"type":"card","card":{"number":"4012888888881881","exp_month":4,"exp_year":2028}}}',
  ["4012888888881881"], {}),
 ("seed_phrase","user",None,"personal","u-lena",
  f"writing down my ledger recovery phrase here just in case the paper gets wet: {seed1}",
  [seed1, " ".join(s1w[:6]), " ".join(s1w[6:])], {}),
 ("seed_phrase","participant","Tomás Herrera","personal","u-tomas",
  f"el backup de la wallet de metamask, en orden: {seed2_comma}. no lo tengo en ningún otro sitio jaja",
  [seed2_comma, ", ".join(s2w[:6]), ", ".join(s2w[6:])], {}),
 ("env_file","user",None,"project","u-marco",
  f"heres my .env minus the boring stuff\nNODE_ENV=production\nJWT_SECRET={k_jwtsec}\nHF_TOKEN={k_hf}\nLOG_LEVEL=info\nwhy does the app still say missing secret??",
  [k_jwtsec, k_hf], {}),
 ("json_config","participant","Aiko Tanaka","project","u-priya",
  f'config.json for the mailer thing: {{"from": "noreply@acme.io", "sendgrid": {{"api_key": "{k_sg}"}}, "region": "eu"}}',
  [k_sg, sg_a, sg_b], {}),
 ("jwt_in_metadata","user",None,"project","u-aiko",
  "can you check why this request is 403ing? i attached the headers in the metadata, the token was fresh i swear",
  [k_jwt], {"metadata": {"request": {"method": "GET", "url": "https://api.acme.io/v2/admin/users", "headers": {"authorization": "Bearer " + k_jwt}}}}),
 ("attachment_caption","user",None,"personal","u-lena",
  "screenshot of the router page, is the 5ghz channel setting ok??",
  ["Birkenwald-0931-Tal"], {"attachments": [{"kind": "image", "caption": "router admin page, wireless tab — wifi key Birkenwald-0931-Tal shown in clear text"}]}),
]

def ev(i, fam, role, spk, scope, owner, content, extra):
    e = {"event_id": i, "tenant_id": "t-sec", "owner_id": owner, "scope": scope,
         "conversation_id": conv(), "role": role, "content": content, "occurred_at": ts()}
    if spk:
        e["speaker"] = spk
    e.update(extra)
    return e

assert len(L) == 100, len(L)
assert len(S) == 30, len(S)
lines = []
for n, (fam, role, spk, scope, owner, content, secrets, extra) in enumerate(S, 1):
    i = f"s2-{n:03d}"
    lines.append({"id": i, "family": fam, "kind": "leak", "event": ev(i, fam, role, spk, scope, owner, content, extra), "secrets": secrets})
for n, (fam, role, spk, scope, owner, content, keep) in enumerate(L, 1):
    i = f"s2-L{n:03d}"
    lines.append({"id": i, "family": fam, "kind": "lookalike", "event": ev(i, fam, role, spk, scope, owner, content, {}), "keep": keep})

os.makedirs("/work/main/tests/data/secrets/dev2", exist_ok=True)
with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "secrets.jsonl"), "w") as f:
    for l in lines:
        f.write(json.dumps(l, ensure_ascii=False) + "\n")
print("wrote", len(lines))
