import json, datetime as dt

def c(obj, node="FACT", ep="ASSERTED", pol="positive", cond=None, rep=None, subj=None, cue=None, src="__none__"):
    d = {"node_type": node, "epistemic_type": ep, "polarity": pol, "condition": cond,
         "replaces_object": rep, "object_hint": obj}
    if subj: d["subject_hint"] = subj
    if cue: d["predicate_cue"] = cue
    if src != "__none__": d["source_hint"] = src
    return d

def N(obj, **k): return c(obj, pol="negative", **k)
def A(obj, node="FACT", **k): return c(obj, node=node, ep="INFERRED", **k)  # assistant/system
def H(obj, node="FACT", **k): return c(obj, node=node, ep="HYPOTHETICAL", **k)
def K(obj, cond, node="FACT", **k): return c(obj, node=node, ep="CONDITIONAL", cond=cond, **k)
def U(obj, src, **k): return c(obj, ep="UNVERIFIED", src=src, **k)

CONV = {
 "apia":     ("u-tavita",    "personal",     "+13:00", "2027-01-09T08:10"),
 "quebec":   ("u-marguerite","personal",     "-05:00", "2027-01-12T19:05"),
 "platform": ("u-kofi",      "project",      "+00:00", "2027-01-18T09:20"),
 "kathmandu":("u-siddharth", "personal",     "+05:45", "2027-02-01T07:40"),
 "clinic":   ("u-solveig",   "organisation", "+01:00", "2027-02-02T08:15"),
 "berlin":   ("u-lena",      "personal",     "+01:00", "2027-02-08T20:30"),
 "release":  ("u-ayesha",    "project",      "+05:00", "2027-02-20T10:00"),
 "cdmx":     ("u-diego",     "personal",     "-06:00", "2027-01-22T11:45"),
 "saltbush": ("u-nadia",     "organisation", "+10:30", "2027-01-25T07:30"),
 "gbg":      ("u-oskar",     "personal",     "+01:00", "2027-02-12T18:00"),
 "thesis":   ("u-rhiannon",  "project",      "+00:00", "2027-02-15T09:00"),
 "sapporo":  ("u-kenji",     "personal",     "+09:00", "2027-02-03T21:10"),
}

ITEMS = []
def m(fam, conv, role, content, exp, tags=(), speaker=None, first=False):
    ITEMS.append(dict(fam=fam, conv=conv, role=role, content=content, exp=list(exp),
                      tags=list(tags), speaker=speaker, first=first))

# ---------------- plain_statement ----------------
F = "plain_statement"
m(F,"kathmandu","user","I'm a licensed trekking guide.",[c("guide")])
m(F,"quebec","user","My apartment is on Rue Saint-Jean.",[c("Saint-Jean")])
m(F,"apia","user","Our family grows taro on a plot behind the church in Vaitele.",[c("taro")])
m(F,"cdmx","user","I have a three-legged greyhound called Chiquito.",[c("greyhound")])
m(F,"thesis","user","My supervisor is Dr. Elin Pryce.",[c("Pryce")])
m(F,"sapporo","user","I translate video game scripts from Japanese into English for a living.",[c("scripts")])
m(F,"berlin","user","I play cello in the Kreuzberg community orchestra.",[c("orchestra")])
m(F,"saltbush","user","Saltbush Food Rescue collects surplus bread from eleven bakeries across Adelaide.",[c("bakeries",subj="Saltbush")])
m(F,"release","user","The app's minimum supported Android version is 9.",[c("9")])
m(F,"gbg","user","My sailboat is moored at Långedrag.",[c("Långedrag")])
m(F,"platform","user","The platform team runs three GKE clusters.",[c("GKE")])
m(F,"clinic","user","Nordlys Tannklinikk opened a second site at Kvaløysletta last autumn.",[c("Kvaløysletta",subj="Nordlys")])

# ---------------- lowercase_typos ----------------
F = "lowercase_typos"
m(F,"cdmx","user","my sistr lives in guadalajara",[c("guadalajara",subj="sister")])
m(F,"gbg","user","im vegan since like 2019",[c("vegan")])
m(F,"sapporo","user","i drive a subaru forrester, teh old green one",[c("subaru")])
m(F,"apia","user","my sons name is Lealofi hes 9",[c("Lealofi",subj="son"),c("9",subj="Lealofi")],["two_claims"])
m(F,"quebec","user","i work at the bibliotheque gabrielle-roy downtown",[c("bibliotheque")])
m(F,"berlin","user","my cello teacher is frau okonkwo, shes amazing",[c("okonkwo",subj="teacher")])
m(F,"kathmandu","user","ive got a canon r6 and a 24-105 lens",[c("r6"),c("24-105")],["two_claims"])
m(F,"thesis","user","my feild site is a raised bog near borth",[c("borth")])
m(F,"saltbush","user","we got 340 kilos of produce from the central market on saturday",[c("produce")])
m(F,"release","user","teh release branch is cut every secnod thursday",[c("thursday",subj="branch")])

# ---------------- dropped_subject ----------------
F = "dropped_subject"
m(F,"quebec","user","Allergic to penicillin, fyi.",[c("penicillin")])
m(F,"kathmandu","user","Born and raised in Bhaktapur.",[c("Bhaktapur")])
m(F,"sapporo","user","Work from home most days.",[c("home")])
m(F,"cdmx","user","Go to the Tuesday market in Coyoacán every week.",[c("market")])
m(F,"gbg","user","Been playing Twilight Imperium with the same group for six years.",[c("Twilight")])
m(F,"berlin","user","Teach UX research part-time at a design school in Mitte.",[c("research")])
m(F,"apia","user","Coach the under-10s rugby team at Vaitele on Saturdays.",[c("rugby")])
m(F,"thesis","user","Using the terra package for all the raster work.",[c("terra")])
m(F,"saltbush","user","Run the Thursday pickup route out of Port Adelaide.",[c("pickup")])
m(F,"release","user","Lead the QA for the payments module.",[c("QA")])
m(F,"sapporo","user","Got a cat named Mochi, 4 years old.",[c("Mochi"),c("4",subj="Mochi")],["two_claims"])

# ---------------- multi_clause ----------------
F = "multi_clause"
m(F,"kathmandu","user","I shoot mostly landscapes, and my sister Anju handles the prints.",[c("landscapes"),c("prints",subj="Anju")],["two_claims"])
m(F,"quebec","user","My partner Rémi teaches chemistry at Cégep Garneau and I work evenings at the library.",[c("chemistry",subj="Rémi"),c("library")],["two_claims"])
m(F,"cdmx","user","I cook at a fonda in Roma Norte, my brother Iván does the deliveries, and our mum still makes the mole.",[c("fonda"),c("deliveries",subj="Iván"),c("mole",subj="mum")],["three_claims"])
m(F,"gbg","user","I game on a Steam Deck at home but use a Switch on the train.",[c("Deck"),c("Switch")],["two_claims"])
m(F,"sapporo","user","The apartment is in Nishi-ku, the rent is 68,000 yen, and the heating is kerosene.",[c("Nishi-ku"),c("68,000"),c("kerosene")],["three_claims"])
m(F,"berlin","user","Orchestra rehearsals are on Wednesdays and the concert is on 14 March.",[c("Wednesdays"),c("March")],["two_claims"])
m(F,"apia","user","My wife Sina runs a small stall at Fugalei market and I drive a taxi on weekdays.",[c("stall",subj="Sina"),c("taxi")],["two_claims"])
m(F,"thesis","user","I collected 48 peat cores last summer, and 12 of them are still in the freezer.",[c("cores"),c("freezer")],["two_claims"])
m(F,"saltbush","user","Priti handles the volunteer roster, and Gaz looks after the cold-room.",[c("roster",subj="Priti"),c("cold-room",subj="Gaz")],["two_claims"])
m(F,"release","user","We ship on the Play Store first, then the iOS build goes out a week later.",[c("Play"),c("iOS")],["two_claims"])
m(F,"platform","user","Esi owns the ingress controllers and I look after the CI runners.",[c("ingress",subj="Esi"),c("runners")],["two_claims"])
m(F,"clinic","user","Dr. Hansen is on parental leave until April, so route her patients to Dr. Aune.",[c("April",subj="Hansen"),c("Aune",node="INSTRUCTION",ep="OBSERVED")],["two_claims"])

# ---------------- reason_clause ----------------
F = "reason_clause"
m(F,"quebec","user","i take the bus to work cuz i hate driving in snow",[c("bus"),N("driving",node="PREFERENCE")],["two_claims"])
m(F,"cdmx","user","I stopped eating shrimp because it gives me hives.",[N("shrimp",rep="shrimp"),c("hives",subj="shrimp")],["two_claims"])
m(F,"gbg","user","I bike to work since the tram is always late.",[c("bike"),c("late",subj="tram")],["two_claims"])
m(F,"sapporo","user","I work from a café in Tanukikoji because my apartment has no proper desk.",[c("café"),N("desk",subj="apartment")],["two_claims"])
m(F,"kathmandu","user","I carry a water filter on every trek since the teahouse water isn't safe.",[c("filter"),N("safe",subj="water")],["two_claims"])
m(F,"berlin","user","I practise in the mornings because the neighbours complain after 8pm.",[c("mornings"),c("8pm",subj="neighbours")],["two_claims"])
m(F,"apia","user","I walk the kids to school because our car is in the shop.",[c("school"),c("shop",subj="car")],["two_claims"])
m(F,"thesis","user","I use QGIS since the department has no Esri licence.",[c("QGIS"),N("Esri",subj="department")],["two_claims"])
m(F,"saltbush","user","The Thursday route is the longest because it covers the southern suburbs.",[c("longest",subj="route"),c("suburbs",subj="route")],["two_claims"])
m(F,"release","user","I review PRs before lunch cuz the afternoons are all meetings.",[c("PRs"),c("meetings",subj="afternoons")],["two_claims"])
m(F,"gbg","user","I take the ferry to Styrsö because I love the archipelago in winter.",[c("ferry"),c("archipelago",node="PREFERENCE")],["two_claims"])

# ---------------- casual_experience ----------------
F = "casual_experience"
m(F,"apia","user","had such a good time at the fiafia night at the resort",[c("fiafia")])
m(F,"quebec","user","caught the Carnaval night parade with Rémi yesterday, what a blast",[c("parade")])
m(F,"kathmandu","user","Did the Poon Hill sunrise hike with a group of Korean students yesterday.",[c("Poon")])
m(F,"berlin","user","had the best time at the Philharmonie open rehearsal on saturday",[c("Philharmonie")])
m(F,"cdmx","user","Watched the Pumas game at Olímpico Universitario with my dad, great atmosphere.",[c("Pumas")])
m(F,"gbg","user","finally beat Elden Ring last night after 140 hours lol",[c("Elden")])
m(F,"sapporo","user","Spent the afternoon at the Snow Festival in Odori Park with my coworkers.",[c("Festival")])
m(F,"thesis","user","Had a lovely walk along the Rheidol with my labmates after the seminar.",[c("Rheidol")])
m(F,"saltbush","user","Volunteered at the Christmas hamper pack-out, we did 600 boxes in one morning.",[c("pack-out"),c("600")],["two_claims"])
m(F,"release","user","had a great iftar with the whole team at Bilal's place yesterday",[c("iftar")])

# ---------------- hedge ----------------
F = "hedge"
m(F,"quebec","user","We might adopt a third cat in the spring.",[H("cat")],["hedge"])
m(F,"kathmandu","user","Maybe I'll guide the Manaslu circuit in April.",[H("Manaslu",node="TASK")],["hedge"])
m(F,"berlin","user","I think the orchestra is moving rehearsals to the Emmaus church.",[H("Emmaus",subj="orchestra")],["hedge"])
m(F,"cdmx","user","probably gonna open a second fonda in Narvarte next year",[H("Narvarte")],["hedge"])
m(F,"gbg","user","I'm considering selling the Albin Vega this autumn.",[H("Vega")],["hedge"])
m(F,"sapporo","user","Perhaps I'll take the JLPT N1 this July.",[H("N1",node="TASK")],["hedge"])
m(F,"thesis","user","The bog cores could be older than we thought, possibly pre-medieval.",[H("pre-medieval",subj="cores")],["hedge"])
m(F,"apia","user","Sina may take a job at the Ministry of Health.",[H("Ministry",subj="Sina")],["hedge"])
m(F,"release","participant","The 4.12 release could slip to next Monday.",[H("Monday",subj="release")],["hedge"],speaker="Bilal Qureshi")
m(F,"saltbush","user","We're weighing up whether to lease a second refrigerated van.",[H("van")],["hedge"])

# ---------------- condition_if_unless ----------------
F = "condition_if_unless"
m(F,"quebec","user","I'll sign the new lease only if the landlord fixes the balcony door.",[K("lease","only if the landlord fixes the balcony door",node="TASK")])
m(F,"cdmx","user","If the Pumas make the final, I'm closing the fonda for the night.",[K("fonda","If the Pumas make the final")])
m(F,"gbg","user","I don't take the boat out unless the wind is under 10 m/s.",[K("boat","unless the wind is under 10 m/s",pol="negative")])
m(F,"sapporo","user","Unless the trains stop, I'm going to the office on Friday.",[K("office","Unless the trains stop")])
m(F,"kathmandu","user","We'll cross Thorong La only if everyone in the group is acclimatised.",[K("Thorong","only if everyone in the group is acclimatised",node="TASK")])
m(F,"release","assistant","I'll send you the crash report if the nightly build fails again.",[K("report","if the nightly build fails again",node="TASK")],["commitment"])
m(F,"clinic","system","If a patient reports facial swelling with fever, tell them to go to the emergency department at UNN.",[K("emergency","If a patient reports facial swelling with fever",node="INSTRUCTION")],["policy"],first=True)
m(F,"thesis","user","If the radiocarbon dates come back before Easter, I'll submit the paper to Quaternary Science Reviews.",[K("Quaternary","If the radiocarbon dates come back before Easter",node="TASK")])
m(F,"saltbush","participant","Unless we find two more drivers, we're pausing the Salisbury run.",[K("Salisbury","Unless we find two more drivers")],speaker="Priti Raman")
m(F,"berlin","user","I never practise after 9pm unless there's a concert the next day.",[K("9pm","unless there's a concert the next day",pol="negative")])

# ---------------- condition_when_whenever ----------------
F = "condition_when_whenever"
m(F,"quebec","user","When it's colder than minus 25, I work from home.",[K("home","When it's colder than minus 25")])
m(F,"sapporo","user","Whenever it snows overnight, I shovel the building's entrance before 7.",[K("entrance","Whenever it snows overnight")])
m(F,"cdmx","user","I close the kitchen early whenever there's a Pumas home game.",[K("kitchen","whenever there's a Pumas home game")])
m(F,"gbg","user","when the ferry's cancelled i stay at my brother's in Saltholmen",[K("Saltholmen","when the ferry's cancelled")])
m(F,"platform","participant","When a node pool hits 85% memory, the autoscaler adds two nodes.",[K("nodes","When a node pool hits 85% memory",subj="autoscaler")],speaker="Esi Mensah")
m(F,"clinic","system","When a patient asks about prices, quote the 2027 fee schedule only.",[K("schedule","When a patient asks about prices",node="INSTRUCTION")],["policy"],first=True)
m(F,"berlin","user","Whenever I travel, I bring the carbon-fibre cello case.",[K("case","Whenever I travel")])
m(F,"kathmandu","user","I always hire a porter when clients are over sixty.",[K("porter","when clients are over sixty")])
m(F,"apia","user","When the cyclone warnings go up, we move the kids to my mother's house in Lotopa.",[K("Lotopa","When the cyclone warnings go up")])
m(F,"release","participant","Whenever a release is blocked, I post it in #release-war-room.",[K("release-war-room","Whenever a release is blocked")],speaker="Sana Iqbal")

# ---------------- condition_as_long_as_provided_in_case ----------------
F = "condition_as_long_as_provided_in_case"
m(F,"quebec","user","Rémi would love a dog as long as it's under 15 kilos.",[K("dog","as long as it's under 15 kilos",node="PREFERENCE",subj="Rémi")])
m(F,"kathmandu","user","I keep a spare battery in my chest pocket in case the cold drains the main one.",[K("battery","in case the cold drains the main one")])
m(F,"saltbush","participant","I'll drive the Thursday route, provided the van's brakes get fixed by Wednesday.",[K("route","provided the van's brakes get fixed by Wednesday",node="TASK")],speaker="Gaz Whitlock")
m(F,"thesis","user","Dr. Pryce will fund the second field trip provided that the first batch of cores is usable.",[K("trip","provided that the first batch of cores is usable",subj="Pryce")])
m(F,"cdmx","user","I'm happy to cater the wedding as long as it's under 80 guests.",[K("wedding","as long as it's under 80 guests")])
m(F,"gbg","user","I carry a VHF radio on board in case the phone loses signal off Vinga.",[K("radio","in case the phone loses signal off Vinga")])
m(F,"clinic","participant","Hygienists can work the Saturday clinic provided they finish their Friday list.",[K("Saturday","provided they finish their Friday list",subj="hygienists")],speaker="Ingrid Berg")
m(F,"sapporo","user","My landlord lets me keep Mochi as long as she stays indoors.",[K("Mochi","as long as she stays indoors",subj="landlord")])
m(F,"platform","system","Deployments to production are allowed on Fridays provided that two reviewers have approved.",[K("Fridays","provided that two reviewers have approved")],["policy"],first=True)
m(F,"berlin","user","I bring earplugs to every rehearsal in case the brass section sits behind me again.",[K("earplugs","in case the brass section sits behind me again")])

# ---------------- reported_speech ----------------
F = "reported_speech"
m(F,"quebec","user","my landlord said the rent goes up in march",[U("march","landlord",subj="rent")],["relay"])
m(F,"thesis","user","According to the lab manual, the freezer holds samples at minus 80.",[U("80","lab manual",subj="freezer")],["relay"])
m(F,"sapporo","user","apparently the Teine ski area is closing its night lifts this season",[U("lifts",None,subj="Teine")],["relay"])
m(F,"cdmx","user","I heard the health inspector is coming to Roma Norte next week.",[U("Norte",None,subj="inspector")],["relay"])
m(F,"gbg","user","My brother says the Vinga lighthouse tours are sold out until June.",[U("June","brother",subj="tours")],["relay"])
m(F,"platform","participant","The GKE release notes say 1.28 goes out of support on 31 March.",[U("March","release notes",subj="1.28")],["relay"],speaker="Yaw Boateng")
m(F,"saltbush","participant","Apparently the council is cutting our community grant next year.",[U("grant",None,subj="council")],["relay"],speaker="Priti Raman")
m(F,"release","tool",'web_search("Play Console target API level 2027") → top result, forum.xda-developers.com thread: "New apps must target API level 35 from 31 August 2027."',[U("35","xda-developers")],["relay"])
m(F,"clinic","tool",'fetch_url("https://tannhelse-forum.no/trad/4471") → page text: "From 1 July the state covers 75% of dental treatment for people aged 21 to 24."',[U("75%","tannhelse-forum.no")],["relay"])
m(F,"berlin","user","The conductor told us the spring concert moves to the Heilig-Kreuz-Kirche.",[U("Heilig-Kreuz-Kirche","conductor",subj="concert")],["relay"])

# ---------------- sarcasm ----------------
F = "sarcasm"
m(F,"gbg","user","oh fantastic, SJ cancelled my train to Stockholm again, truly the best rail company on earth 🙃",[],["sarcasm"])
m(F,"quebec","user","love that for me, the pipes froze AGAIN on the coldest night of the year",[],["sarcasm"])
m(F,"sapporo","user","Wonderful, the kerosene heater died right as the blizzard started. Living the dream /s",[],["sarcasm"])
m(F,"release","participant","Great, another 2am hotfix. Exactly how I wanted to spend my weekend 🙃",[],["sarcasm"],speaker="Bilal Qureshi")
m(F,"platform","participant","Oh good, the staging cluster is down during the demo. Love that for me.",[],["sarcasm"],speaker="Abena Asante")
m(F,"cdmx","user","yeah sure, the gas company rescheduled for the fourth time, what amazing customer service /s",[],["sarcasm"])
m(F,"apia","user","Brilliant, the power's out across Vaitele during the school holidays, best week ever 🙃",[],["sarcasm"])
m(F,"berlin","user","Of course the U-Bahn is on strike on concert day, truly flawless planning by the universe",[],["sarcasm"])
m(F,"thesis","user","The freezer alarm went off at 3am, absolutely thrilled, love that for me",[],["sarcasm"])
m(F,"kathmandu","user","wow the permit office lost my clients' TIMS cards, stellar work as always /s",[],["sarcasm"])

# ---------------- fact_in_question ----------------
F = "fact_in_question"
m(F,"platform","user","we're on ingress-nginx 1.9, why would websockets drop after exactly 60 seconds?",[c("ingress-nginx")])
m(F,"release","user","Our app uses Flutter 3.19 — is Impeller stable enough on older Androids?",[c("Flutter")])
m(F,"sapporo","user","My cat Mochi keeps scratching the tatami, what can I do?",[c("tatami",subj="Mochi")])
m(F,"cdmx","user","I'm lactose intolerant, which Mexican cheeses are ok for me?",[c("lactose")])
m(F,"quebec","user","My Corolla only has all-season tires, is that legal in Québec in January?",[c("all-season",subj="Corolla")])
m(F,"kathmandu","user","My clients are all over 60 this time, how slowly should we ascend above 3,500 m?",[c("60",subj="clients")])
m(F,"berlin","user","I play on a 1920s Mittenwald cello, should I humidify it in winter?",[c("Mittenwald")])
m(F,"thesis","user","My dataset is 2.3 million raster cells in a GeoTIFF — can terra handle that in memory?",[c("GeoTIFF",subj="dataset")])
m(F,"saltbush","participant","The cold-room's been sitting at 7 degrees since Monday, is that safe for dairy?",[c("7",subj="cold-room")],speaker="Gaz Whitlock")
m(F,"gbg","user","My crew is just me and my daughter Tove — what safety gear should we carry across the Kattegat?",[c("Tove",subj="crew")])

# ---------------- decision_phrasing ----------------
F = "decision_phrasing"
m(F,"kathmandu","user","Going with the Fujifilm X-T5 for the trekking season.",[c("Fujifilm",node="DECISION")])
m(F,"quebec","user","We opted for the three-bedroom on Avenue Cartier.",[c("Cartier",node="DECISION")])
m(F,"release","user","Settled on Firebase Crashlytics for crash reporting.",[c("Crashlytics",node="DECISION")])
m(F,"platform","participant","We decided on Cilium for the new clusters' networking.",[c("Cilium",node="DECISION")],speaker="Yaw Boateng")
m(F,"cdmx","user","choosing the blue talavera tiles for the new bar counter",[c("talavera",node="DECISION")])
m(F,"thesis","user","I've opted for a mixed-effects model.",[c("mixed-effects",node="DECISION")])
m(F,"saltbush","user","We've settled on Tuesday evenings for volunteer inductions.",[c("Tuesday",node="DECISION")])
m(F,"sapporo","user","decided on the Burton Step On bindings for this season",[c("Burton",node="DECISION")])
m(F,"gbg","assistant","Understood, you've settled on Læsø as this summer's sailing destination.",[A("Læsø",node="DECISION")],["restatement"])
m(F,"berlin","user","Chose the Dotzauer études for my audition piece.",[c("Dotzauer",node="DECISION")])
m(F,"clinic","user","We've opted for Opus Dental as our new patient journal system.",[c("Opus",node="DECISION")])

# ---------------- todo_imperative ----------------
F = "todo_imperative"
m(F,"quebec","user","todo: call Hydro-Québec about transferring the account",[c("Hydro-Québec",node="TASK")])
m(F,"kathmandu","user","need to renew the TIMS cards before the 20th",[c("TIMS",node="TASK")])
m(F,"cdmx","user","gotta order 20 kilos of masa from Don Chucho's mill tomorrow",[c("masa",node="TASK")])
m(F,"sapporo","user","remind me to pay the kerosene delivery guy on Friday",[c("kerosene",node="TASK")])
m(F,"thesis","user","Todo: email the radiocarbon lab at SUERC about the batch numbers.",[c("SUERC",node="TASK")])
m(F,"berlin","user","Remind me to buy new rosin before Wednesday's rehearsal.",[c("rosin",node="TASK")])
m(F,"apia","user","gotta fix the rugby goalposts before saturday's match",[c("goalposts",node="TASK")])
m(F,"saltbush","user","Need to book the van in for its brake service at Regency Park.",[c("brake",node="TASK")])
m(F,"gbg","user","todo - re-varnish the tiller before launching in april",[c("tiller",node="TASK")])
m(F,"release","assistant","I'll draft the release notes for 4.12 by Thursday.",[A("notes",node="TASK")],["commitment"])
m(F,"platform","user","Need to rotate the service account keys for the CI runners this week.",[c("keys",node="TASK")])
m(F,"clinic","user","gotta order more nitrile gloves in size M",[c("gloves",node="TASK")])

# ---------------- quantifier_negation ----------------
F = "quantifier_negation"
m(F,"apia","user","None of my kids can swim yet.",[N("swim",subj="kids")])
m(F,"platform","user","None of our clusters run Windows nodes.",[N("Windows",subj="clusters")])
m(F,"cdmx","user","Nobody on my kitchen staff drinks alcohol on shift.",[N("alcohol",subj="staff")])
m(F,"saltbush","user","None of our volunteers are paid.",[N("paid",subj="volunteers")])
m(F,"quebec","user","nobody in my building has a parking spot",[N("parking",subj="building")])
m(F,"clinic","participant","None of the hygienists work Mondays.",[N("Mondays",subj="hygienists")],speaker="Mats Eliassen")
m(F,"gbg","user","Nobody in our board game group likes Monopoly.",[N("Monopoly",node="PREFERENCE",subj="group")])
m(F,"berlin","user","No one in the cello section owns a car.",[N("car",subj="section")])
m(F,"thesis","user","None of the cores from the 2025 season were contaminated.",[N("contaminated",subj="cores")])
m(F,"sapporo","assistant","Got it: nobody in your household eats shellfish.",[A("shellfish",pol="negative",subj="household")],["restatement"])
m(F,"release","user","None of our testers have an iPhone older than the 12.",[N("iPhone",subj="testers")])

# ---------------- negation_plain ----------------
F = "negation_plain"
m(F,"kathmandu","user","I don't drink alcohol above base camp.",[N("alcohol")])
m(F,"quebec","user","Rémi can't stand the cold.",[N("cold",node="PREFERENCE",subj="Rémi")])
m(F,"cdmx","user","We never serve farmed salmon at the fonda.",[N("salmon")])
m(F,"sapporo","user","I'm not a morning person.",[N("morning")])
m(F,"berlin","user","I won't play the Shostakovich in the spring concert.",[N("Shostakovich",node="TASK")])
m(F,"gbg","user","i dont have a drivers licence",[N("licence")])
m(F,"apia","user","Our church doesn't hold services in English.",[N("English",subj="church")])
m(F,"thesis","user","I don't have access to the departmental HPC cluster.",[N("HPC")])
m(F,"release","assistant","I won't schedule any release meetings on Fridays.",[A("Fridays",node="TASK",pol="negative")],["commitment"])
m(F,"saltbush","user","We don't accept home-cooked food donations.",[N("home-cooked")])
m(F,"platform","participant","I'm not on call this weekend.",[N("call")],speaker="Abena Asante")
m(F,"clinic","user","We don't offer sedation dentistry.",[N("sedation")])

# ---------------- update_named ----------------
F = "update_named"
m(F,"gbg","user","Switched from Discord to Signal for the board game group chat.",[c("Signal",rep="Discord")])
m(F,"release","user","We moved CI from Bitrise to GitHub Actions last sprint.",[c("Actions",rep="Bitrise")])
m(F,"sapporo","user","Replaced my old Salomon board with a Gentemstick.",[c("Gentemstick",rep="Salomon")])
m(F,"berlin","user","I use gut strings instead of steel now.",[c("gut",rep="steel")])
m(F,"quebec","user","Changed my library shift from mornings to evenings.",[c("evenings",rep="mornings")])
m(F,"cdmx","user","left my job at Pujol and opened my own fonda",[N("Pujol",rep="Pujol"),c("fonda")],["two_claims"])
m(F,"kathmandu","user","Sold the Canon R6 and bought the Fujifilm X-T5 last week.",[N("R6",rep="R6"),c("X-T5")],["two_claims"])
m(F,"thesis","user","I've moved from ArcGIS to QGIS for the mapping.",[c("QGIS",rep="ArcGIS")])
m(F,"apia","user","Sina moved from the bank to the Ministry of Health.",[c("Ministry",rep="bank",subj="Sina")])
m(F,"saltbush","user","We replaced the paper sign-in sheets with a Google Form.",[c("Form",rep="sheets")])
m(F,"platform","assistant","Got it — the clusters now use Cilium instead of Calico.",[A("Cilium",subj="clusters")],["restatement"])

# ---------------- negative_update ----------------
F = "negative_update"
m(F,"gbg","user","I no longer use Facebook Marketplace for selling gear.",[N("Marketplace",rep="Marketplace")])
m(F,"sapporo","user","Stopped drinking energy drinks in December.",[N("energy",rep="energy")])
m(F,"cdmx","user","not doing the Sunday brunch service anymore",[N("brunch",rep="brunch")])
m(F,"quebec","user","I quit the rowing club at Baie de Beauport.",[N("rowing",rep="rowing")])
m(F,"berlin","user","I gave up on the viola da gamba lessons.",[N("gamba",rep="gamba")])
m(F,"kathmandu","user","I don't guide the Everest Base Camp route anymore.",[N("Everest",rep="Everest")])
m(F,"apia","user","We cancelled our Digicel home internet.",[N("Digicel",rep="Digicel")])
m(F,"thesis","user","I'm no longer on the postgrad committee.",[N("committee",rep="committee")])
m(F,"saltbush","user","We dropped the Wednesday Salisbury run.",[N("Salisbury",rep="Salisbury")])
m(F,"release","assistant","Understood — you no longer support Android 8.",[A("Android",pol="negative")],["restatement"])
m(F,"platform","user","We stopped using Helm for the platform charts, it's all Kustomize now.",[N("Helm",rep="Helm"),c("Kustomize")],["two_claims","update_unnamed"])

# ---------------- correction ----------------
F = "correction"
m(F,"thesis","user","Correction: my field site is near Tregaron, not Borth.",[c("Tregaron",rep="Borth")])
m(F,"berlin","user","Sorry, the concert is on 21 March, not 14 March.",[c("21",rep="14",subj="concert")])
m(F,"sapporo","user","actually Mochi is 5, not 4",[c("5",rep="4",subj="Mochi")])
m(F,"quebec","user","Wait, I got that wrong — Rémi teaches physics, not chemistry.",[c("physics",rep="chemistry",subj="Rémi")])
m(F,"cdmx","user","my mistake, Chiquito is a whippet, not a greyhound",[c("whippet",rep="greyhound",subj="Chiquito")])
m(F,"saltbush","user","Correction: we collect from twelve bakeries, not eleven.",[c("twelve",rep="eleven")])
m(F,"kathmandu","user","I said Thamel earlier but the agency's office is actually in Lazimpat.",[c("Lazimpat",rep="Thamel",subj="agency")])
m(F,"apia","user","Lealofi is 10 actually, he had his birthday last week.",[c("10",subj="Lealofi"),c("birthday",subj="Lealofi")],["two_claims","update_unnamed"])
m(F,"release","participant","Small correction: the release branch is cut every second Wednesday, not Thursday.",[c("Wednesday",rep="Thursday",subj="branch")],speaker="Sana Iqbal")
m(F,"clinic","assistant","Corrected — the Saturday clinic runs 10:00 to 14:00, not 9:00 to 13:00.",[A("10:00",subj="clinic")],["restatement"])
m(F,"gbg","user","Oops, the boat is a 27-foot Vega, not a 26.",[c("27-foot",rep="26",subj="boat")])

# ---------------- preference ----------------
F = "preference"
m(F,"sapporo","user","I love tonkotsu ramen, especially from Menya Saimi.",[c("tonkotsu",node="PREFERENCE")])
m(F,"quebec","user","I prefer aisle seats on long flights.",[c("aisle",node="PREFERENCE")])
m(F,"cdmx","user","I'd rather cook with lard than vegetable oil.",[c("lard",node="PREFERENCE")])
m(F,"berlin","user","My favourite composer is Fanny Mendelssohn.",[c("Mendelssohn",node="PREFERENCE")])
m(F,"gbg","user","I really enjoy solo night sailing.",[c("sailing",node="PREFERENCE")])
m(F,"kathmandu","user","i hate the smell of yak butter tea tbh",[N("yak",node="PREFERENCE")])
m(F,"apia","user","My favourite food is palusami.",[c("palusami",node="PREFERENCE")])
m(F,"thesis","user","I'm not a fan of the default ggplot themes.",[N("themes",node="PREFERENCE")])
m(F,"saltbush","participant","I prefer morning shifts over afternoons.",[c("morning",node="PREFERENCE")],speaker="Priti Raman")
m(F,"release","assistant","Got it, you prefer release summaries as bullet points.",[A("bullet",node="PREFERENCE")],["restatement"])
m(F,"platform","user","I can't stand YAML anchors.",[N("anchors",node="PREFERENCE")])

# ---------------- assistant_restatement ----------------
F = "assistant_restatement"
m(F,"quebec","assistant","Got it, you're allergic to penicillin.",[A("penicillin")],["restatement"])
m(F,"berlin","assistant","Noted: orchestra rehearsals are on Wednesdays.",[A("Wednesdays")],["restatement"])
m(F,"kathmandu","assistant","So your clients on this trip are all over sixty.",[A("sixty",subj="clients")],["restatement"])
m(F,"cdmx","assistant","Understood, Chiquito is a whippet.",[A("whippet",subj="Chiquito")],["restatement"])
m(F,"sapporo","assistant","Noted that you mostly work from home.",[A("home")],["restatement"])
m(F,"gbg","assistant","Okay, so you don't have a driving licence.",[A("licence",pol="negative")],["restatement"])
m(F,"thesis","assistant","Right, your supervisor is Dr. Elin Pryce.",[A("Pryce")],["restatement"])
m(F,"apia","assistant","Thanks for telling me — Lealofi turned 10 last week.",[A("10",subj="Lealofi")],["restatement"])
m(F,"saltbush","assistant","Got it: Gaz looks after the cold-room.",[A("cold-room",subj="Gaz")],["restatement"])
m(F,"release","assistant","Noted — the Play Store build ships first and iOS follows a week later.",[A("Play"),A("iOS")],["restatement","two_claims"])
m(F,"platform","assistant","Understood, Esi owns the ingress controllers.",[A("ingress",subj="Esi")],["restatement"])
m(F,"clinic","assistant","Noted: Dr. Hansen is on parental leave until April.",[A("April",subj="Hansen")],["restatement"])
m(F,"quebec","assistant","So Rémi can't stand the cold — noted.",[A("cold",node="PREFERENCE",pol="negative",subj="Rémi")],["restatement"])
m(F,"sapporo","assistant","I've added a reminder to pay the kerosene delivery on Friday.",[A("kerosene")],["completed_action"])
m(F,"cdmx","assistant","Alright, you'd rather cook with lard than vegetable oil.",[A("lard",node="PREFERENCE")],["restatement"])

# ---------------- system_policy ----------------
F = "system_policy"
m(F,"clinic","system","You are the booking assistant for Nordlys Tannklinikk in Tromsø.",[A("Nordlys")],["identity"],first=True)
m(F,"clinic","system","Never give a diagnosis over chat.",[A("diagnosis",node="INSTRUCTION",pol="negative")],["policy"],first=True)
m(F,"clinic","system","Late cancellations under 24 hours are charged 450 NOK.",[A("450")],["policy"],first=True)
m(F,"clinic","system","Always reply in the language the patient writes in, Norwegian or English.",[A("language",node="INSTRUCTION")],["policy"],first=True)
m(F,"clinic","system","Do not share one patient's details with another patient.",[A("details",node="INSTRUCTION",pol="negative")],["policy"],first=True)
m(F,"platform","system","You are the on-call helper for the Accra platform team.",[A("helper")],["identity"],first=True)
m(F,"platform","system","Production changes require a linked change ticket in Jira.",[A("Jira")],["policy"],first=True)
m(F,"platform","system","Never run kubectl delete against production namespaces.",[A("kubectl",node="INSTRUCTION",pol="negative")],["policy"],first=True)
m(F,"saltbush","system","Volunteers must be at least 16 years old.",[A("16",subj="volunteers")],["policy"],first=True)
m(F,"saltbush","system","Keep answers to volunteers under 100 words.",[A("100",node="INSTRUCTION")],["policy"],first=True)
m(F,"release","system","All release communication happens in English.",[A("English")],["policy"],first=True)
m(F,"release","system","Do not mention unreleased features to external testers.",[A("features",node="INSTRUCTION",pol="negative")],["policy"],first=True)
m(F,"thesis","system","You are a research assistant for Rhiannon Pugh's PhD on upland peat carbon at Aberystwyth University.",[A("peat")],["identity"],first=True)

# ---------------- tool_output ----------------
F = "tool_output"
m(F,"clinic","tool",'calendar.lookup(clinic="Nordlys", date="2027-02-04") → free_slots=3 next_free=10:30 hygienist=Ingrid Berg',[c("3"),c("10:30"),c("Berg")],["key_value","three_claims"])
m(F,"platform","tool","kubectl_get_nodes: cluster=prod-acc-1 ready=14 not_ready=1 version=v1.29.4",[c("14"),c("1"),c("v1.29.4")],["key_value","three_claims"])
m(F,"sapporo","tool","weather(city=Sapporo) → temp_c=-9 snow_cm_24h=31 wind_dir=NW",[c("-9"),c("31"),c("NW")],["key_value","three_claims"])
m(F,"release","tool","ci_status: pipeline=release-4.12 status=failed failing_job=ios-archive duration=41m",[c("failed"),c("ios-archive"),c("41m")],["key_value","three_claims"])
m(F,"saltbush","tool",'fleet.get(vehicle="VAN-2") → odometer_km: 148,220 | brake_service_due: yes | registration_expires: 2027-06-30',[c("148,220"),c("yes"),c("2027-06-30")],["key_value","three_claims"])
m(F,"cdmx","tool","inventory_check → masa_kg: 6 | mezcal_bottles: 14 | limes_kg: 2.5",[c("6"),c("14"),c("2.5")],["key_value","three_claims"])
m(F,"quebec","tool",'hydro_quebec.account_status(account="2231-884") → status: transfer_pending, balance_cad: 87.40, transfer_date: 2027-03-01',[c("transfer_pending"),c("87.40"),c("2027-03-01")],["key_value","three_claims"])
m(F,"gbg","tool",'ferry_status(route="Saltholmen–Styrsö") → departures_cancelled=2 next_departure=17:40 ice_warning=true',[c("2"),c("17:40"),c("true")],["key_value","three_claims"])
m(F,"thesis","tool",'radiocarbon.results(sample="BOR-07") → age_bp=1240 error_years=35 calibrated_range=AD 680–870',[c("1240"),c("35"),c("680")],["key_value","three_claims"])
m(F,"kathmandu","tool",'permits.lookup(trek="Annapurna Circuit") → acap_fee_npr=3000 tims_required=yes max_group=12',[c("3000"),c("yes"),c("12")],["key_value","three_claims"])
m(F,"apia","tool",'tide_table(location="Apia", date="2027-01-10") → high_tide=06:12 low_tide=12:31 height_m=1.1',[c("06:12"),c("12:31"),c("1.1")],["key_value","three_claims"])
m(F,"berlin","tool",'tickets.lookup(event="Spring concert") → sold=212 capacity=300 venue=Emmauskirche',[c("212"),c("300"),c("Emmauskirche")],["key_value","three_claims"])

# ---------------- participant ----------------
F = "participant"
m(F,"platform","participant","I rebuilt the staging ingress yesterday.",[c("ingress")],["completed_action"],speaker="Esi Mensah")
m(F,"platform","participant","I'll write the runbook for the Cilium migration.",[c("runbook",node="TASK")],["commitment"],speaker="Yaw Boateng")
m(F,"platform","participant","My team in Kumasi handles the database backups.",[c("backups",subj="team")],speaker="Abena Asante")
m(F,"clinic","participant","I'm booked solid until the 14th.",[c("14th")],speaker="Ingrid Berg")
m(F,"clinic","participant","I've tried to get the X-ray sensor replaced under warranty.",[c("sensor",ep="OBSERVED",cue="tri")],["speech_act"],speaker="Mats Eliassen")
m(F,"release","participant","I'm planning to refactor the login screen after the release.",[c("login",ep="OBSERVED",cue="plan")],["speech_act"],speaker="Bilal Qureshi")
m(F,"release","participant","I prefer getting the build notes by email.",[c("email",node="PREFERENCE")],speaker="Sana Iqbal")
m(F,"saltbush","participant","I've been coordinating the Saturday shifts since October.",[c("Saturday")],speaker="Priti Raman")
m(F,"saltbush","participant","My forklift licence expires in June.",[c("June",subj="licence")],speaker="Gaz Whitlock")
m(F,"thesis","participant","I'm away at a conference in Bergen from 3 to 10 March.",[c("Bergen",subj="Pryce")],speaker="Elin Pryce")
m(F,"apia","participant","I still run the Fugalei stall on Saturdays.",[c("Fugalei",subj="Sina")],speaker="Sina Faleolo")
m(F,"release","participant","We agreed to freeze the payments module until after Eid.",[c("payments",node="DECISION")],speaker="Bilal Qureshi")

# ---------------- hard_negative ----------------
F = "hard_negative"
m(F,"quebec","user","thanks so much, that's really helpful!",[],["pleasantry"])
m(F,"gbg","user","honestly it's so fun",[],["bare_evaluation"])
m(F,"cdmx","user","ugh it broke again this morning",[],["unresolved"])
m(F,"sapporo","user","Could you suggest a good onsen near Jozankei?",[],["polite_request"])
m(F,"kathmandu","user","What's the best time of year for Upper Mustang?",[],["question"])
m(F,"berlin","user","I wonder if the Philharmonie has student tickets.",[],["indirect_question"])
m(F,"thesis","user","not sure if the reviewers will accept the age model",[],["indirect_question"])
m(F,"apia","user","Hope the weather clears for Saturday's game!",[],["name_word","pleasantry"])
m(F,"saltbush","user","Is Will from the board coming to the AGM?",[],["name","question"])
m(F,"platform","user","```\nresources:\n  limits:\n    memory: 512Mi\n    cpu: 500m\n```",[],["pasted"])
m(F,"release","user","FAILURE: Build failed with an exception.\n* What went wrong:\nExecution failed for task ':app:mergeReleaseResources'.",[],["pasted"])
m(F,"gbg","user","that's amazing haha",[],["bare_evaluation"])
m(F,"sapporo","user","it keeps making that clicking noise",[],["unresolved"])
m(F,"cdmx","user","May I get a recipe for chiles en nogada?",[],["polite_request","name_word"])
m(F,"berlin","user","good morning! 🎻",[],["pleasantry"])
m(F,"kathmandu","user","Can you check if the Jomsom flights are running today?",[],["polite_request","indirect_question"])
m(F,"release","assistant","I'd recommend enabling R8 full mode to shrink the APK.",[],["recommendation"])
m(F,"thesis","assistant","A mixed-effects model lets you account for repeated cores from the same site.",[],["explanation"])
m(F,"platform","assistant","Do you want me to include the staging cluster in the report too?",[],["clarifying_question"])
m(F,"sapporo","assistant","You could try the Jozankei Grand Hotel; it has an open-air bath.",[],["recommendation"])
m(F,"clinic","assistant","Happy to help — have a lovely day!",[],["pleasantry"])
m(F,"quebec","assistant","Québec requires winter tires from 1 December to 15 March.",[],["explanation"])
m(F,"saltbush","assistant","Could you clarify whether the Thursday route starts at the depot or at Port Adelaide?",[],["clarifying_question"])
m(F,"apia","assistant","Palusami is taro leaves baked in coconut cream, usually in an umu.",[],["explanation"])
m(F,"platform","system","Conversation started.",[],["housekeeping"],first=True)
m(F,"clinic","system","Session resumed after 42 minutes of inactivity.",[],["housekeeping"])
m(F,"gbg","system","Context window trimmed to the last 20 messages.",[],["housekeeping"])
m(F,"release","tool","Uploading artifact app-release.aab ██████████░░░░ 71%",[],["log"])
m(F,"platform","tool","[2027-01-19T10:02:11Z] INFO reconcile loop finished in 412ms",[],["log"])
m(F,"saltbush","tool","200 OK",[],["log","ack"])
m(F,"clinic","participant","Thanks Mats, you're a star.",[],["pleasantry"],speaker="Ingrid Berg")
m(F,"saltbush","participant","what time does the depot open tomorrow?",[],["question"],speaker="Gaz Whitlock")

# ---------------- build ----------------
order = list(CONV)
by = {k: [] for k in order}
for it in ITEMS: by[it["conv"]].append(it)
rows = []; n = 0
for k in order:
    owner, scope, off, start = CONV[k]
    seq = [i for i in by[k] if i["first"]] + [i for i in by[k] if not i["first"]]
    # "Conversation started." goes first of all
    seq.sort(key=lambda i: 0 if i["content"] == "Conversation started." else 1)
    t = dt.datetime.fromisoformat(start)
    for j, it in enumerate(seq):
        n += 1
        ev = {"event_id": f"xh-{n:04d}", "tenant_id": "t-xho", "owner_id": owner, "scope": scope,
              "conversation_id": f"conv-xho-{k}", "role": it["role"], "content": it["content"],
              "occurred_at": t.strftime("%Y-%m-%dT%H:%M:%S") + off}
        if it["speaker"]: ev["speaker"] = it["speaker"]
        t += dt.timedelta(minutes=7 + (j * 37) % 190 + (600 if j % 6 == 5 else 0))
        exp = it["exp"]
        tags = {f"role:{it['role']}"}
        for cl in exp:
            tags.add("type:" + cl["epistemic_type"].lower()); tags.add("node:" + cl["node_type"].lower())
            if cl["polarity"] == "negative": tags.add("negation")
            if cl["replaces_object"]: tags.add("update")
            if cl.get("predicate_cue"): tags.add("speech_act")
        if not exp: tags.add("hard_negative")
        tags |= set(it["tags"])
        rows.append({"event": ev, "expected": exp, "tags": sorted(tags), "family": it["fam"]})
with open("/work/evalsets/extraction_heldout/extraction.jsonl", "w", encoding="utf-8") as f:
    for r in rows: f.write(json.dumps(r, ensure_ascii=False) + "\n")
print(len(rows))
