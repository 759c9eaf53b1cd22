# ch2: Diego Ferreira (owner, amateur triathlete, sound engineer in Lisbon)
#      and Aroha Ngata (his online triathlon coach, ex-pro from New Zealand)
CONV = {
"id": "ch2",
"tz": "Europe/Lisbon",
"A": ("diego", "Diego"),
"B": ("aroha", "Aroha"),
"asked_at": "2023-11-02T10:00:00+00:00",
"sessions": [
# ---------------------------------------------------------------- s01
("2023-01-08T18:32", """
B: kia ora diego! aroha here, thanks for filling in the intake form. welcome to tide line coaching 🌊 got a few mins to chat about goals?
A: olá aroha! yes of course. sorry the form was so long, i wrote an essay in the "why" box lol
B: haha i loved it. so the big one is the half ironman in cascais in october, yeah?
A: yes, october 22. my friend rui did it last year and i was at the finish line and i thought ok, next year that's me. then i went home and ate a whole francesinha and forgot about it for 3 months
B: classic. what's your background? you said running mostly
A: yeah i did the lisbon half marathon back in 2021, 1:48 something. i run 3 times a week-ish. bike i have an old aluminium road bike, a 2014 specialized allez, i ride to sintra sometimes on weekends
B: good base. and swimming? the form just said "😬"
A: the emoji is accurate. i can swim like 100m freestyle and then i'm dying. and in the sea i kind of panic when i can't see the bottom
B: that's super common and very fixable, honestly swimming is where most people gain the most. we'll get you in a masters group
A: there's one at the piscina do areeiro, tuesday and thursday at 7am. i looked already
B: perfect. what's your schedule like? you mentioned work is weird
A: i'm a sound engineer at rádio clara, i do the night shift most weeks, 11pm to 7am. so 7am swim would be right after work lol
B: ooh ok that changes things. swimming straight off a night shift is a recipe for drowning tired. we'll look at afternoons
A: yeah probably smarter. i live in alfama on the 4th floor with no elevator so stairs are already my strength training
B: haha free stair intervals. anyone at home i should know about for planning? partner, kids, pets?
A: my girlfriend marta, she's a physiotherapist, so she'll probably have opinions about your plan 😅 no kids, no pets. she's allergic to cats and i'm scared of dogs so
B: a physio partner is a gift for an athlete, i'll take all her opinions. ok last thing, any injuries?
A: nothing big. my left achilles gets tight if i run a lot of hills. and i broke my collarbone falling off a scooter in 2019 but it's fine now
B: noted. i'll build your first 4 weeks tonight and send it on trainingpeaks. first week is mostly testing, nothing scary
A: obrigado! excited and scared
B: perfect ratio 😄 chat soon
"""),
# ---------------------------------------------------------------- s02
("2023-01-21T16:05", """
B: hey! how did week two go? i saw the run test in the app but want to hear it from you
A: olá! it was ok. the run threshold test on thursday was brutal, 30 minutes all out around the estádio universitário track
B: your avg HR for the last 20 was 172, so that's what i'm using as threshold for now. felt like a 9/10?
A: more like 11/10. i saw god around minute 24
B: hahaha that means you did it right. how's swimming going
A: i switched to the 6pm masters group like you said. the coach there, senhor vasco, is like 70 and shouts a lot but he's good
B: love a shouty old swim coach. any breakthroughs?
A: yesterday i swam 400m without stopping!! first time in my life. slow, but no stopping
B: diego that's huge!! in two weeks you went from 100 to 400, that's the kind of jump i like to see
A: vasco says my kick is "like a dying octopus" so there is still work
B: lol we'll do kick sets. side note how's the night shift going with all this
A: tired. i sleep from 8 to 2 and then train around 4. marta says i'm like a vampire that does sport
B: a sporty vampire. make sure you're eating enough, tired + under-fuelled is how people get injured
A: yes coach. my breakfast is at 3pm and it's a huge bowl of rice and eggs
B: that works! also the achilles ok on the track?
A: a little tight the day after but fine. marta did some massage thing that hurt like hell but it worked
B: marta is now officially my assistant coach. ok next week we add a long ride on sunday, 2 hours easy. is the allez in good shape?
A: it needs new tires, the back one is bald. i'll go to the shop on monday
B: good, don't ride bald tires on those lisbon cobbles. nikau says hi btw, he's "helping" me type
A: ahah oi nikau! how old is he now?
B: just turned 2 last week. his current hobby is throwing my phone in the dog bowl at my in-laws' place
"""),
# ---------------------------------------------------------------- s03
("2023-02-04T11:20", """
A: bom dia coach. i did the bike test yesterday on the trainer in the living room
B: saw it! 20 min avg 243w so your FTP is about 231. that's a solid start for someone who mostly runs
A: is that good? i don't know what's good
B: for your weight it's decent, like middle of the pack in your age group. by october i want to see 250+
A: the neighbors downstairs were not happy, the trainer is loud and i was also screaming || IMG: a road bike mounted on an indoor trainer in a small living room with a towel over the handlebars and a puddle of sweat on the tiled floor
B: haha. put a yoga mat under it, it helps with the vibration
A: marta already bought one. she also says i need to do more mobility and less suffering
B: she's not wrong. how's the week been otherwise
A: good. it was marta's birthday on wednesday, she turned 31, we went to a little tasca in mouraria with her sisters and i ate way too much bacalhau à brás
B: happy birthday marta! bacalhau is a perfectly good recovery meal
A: that's what i told her. the pastel de nata after maybe less so
B: everything in moderation lol. ok schedule question, is the night shift changing? you mentioned maybe
A: yes actually. from march i'm on evenings 4pm to midnight instead. so i can train in the mornings like a normal human
B: that's great news for swimming, you can do vasco's 7am group after all
A: yes, vasco will be so happy to shout at me earlier
B: hehe. also, i have a small update on my side, i'm going to start racing again a little. nothing serious, just the porto half marathon in may
A: a comeback! that's cool. when was your last race?
B: kona 2016. then i had nikau and kind of fell in love with coaching instead. but i miss racing a bit
A: kona!! i didn't know you did kona. how did it go?
B: 11th in my age group, hottest day of my life, i threw up at mile 20 and kept going. so yeah i understand suffering 😅
A: ok i will stop complaining about the FTP test
"""),
# ---------------------------------------------------------------- s04
("2023-02-25T20:48", """
A: aroha i think i messed up
B: uh oh, what's up?
A: my left shin. it started hurting four days ago on the tuesday run and now it hurts even walking down the stairs at home
B: ok thanks for telling me straight away. is it a sharp spot you can press with one finger, or more a long ache along the inside of the bone?
A: more a long ache on the inside. no one sharp spot
B: that sounds more like shin splints than a stress fracture, which is good news. but i want it looked at. can marta check it or someone at her clinic?
A: marta looked at it and said the same, medial tibial stress syndrome. she said probably too much running on the calçada and the new shoes
B: new shoes? you didn't tell me about new shoes 👀
A: i bought some carbon plate shoes two weeks ago because they were on sale. i ran every run in them
B: ahh. yeah that'll do it. carbon shoes are for racing and some key sessions, not for every easy run on cobbles
A: i know now 😞 i feel so stupid
B: you're not stupid, you're excited, it's the most common mistake there is. here's the plan: no running for 10 days, bike and swim are fine if they don't hurt
A: 10 days?? but the plan
B: the plan is to get you to the start line in october healthy. 10 days now is way better than 10 weeks in may
A: ok ok. what about the stairs at home, there's 78 of them
B: lol you can't avoid those. go slow, hold the rail. ice after work and do the calf raises marta gives you
A: she gave me a whole sheet of exercises. she's enjoying this || IMG: a handwritten sheet titled "diego - canelas" listing calf raises 3x15, toe walks and ankle circles, stuck to a fridge with a sardine-shaped magnet
B: she's earned it. how's the swim, anything new?
A: i did 800m continuous on thursday. vasco said "finalmente" which i think is a compliment
B: 800!!! that's a huge step. see, the swimming doesn't care about your shin
A: true. ok i will be a good patient
B: and get rid of the carbon shoes for easy runs when you come back. your old pair is fine for now
"""),
# ---------------------------------------------------------------- s05
("2023-03-11T09:15", """
A: good morning! shin update: i ran 20 min easy yesterday and nothing hurt!!
B: yesss! that's the best message i've had all week
A: old shoes, flat route along the river at belém. very boring and very safe
B: boring is exactly what i want from you right now. build slowly, 20-25-30 min, walk breaks are fine
A: ok. and big swim news, on tuesday i swam 1500m without stopping!! that's the full race distance
B: DIEGO. that's massive. two months ago you were dying at 100m
A: i know!! i almost cried in the pool, vasco gave me a high five with his paddle
B: with his PADDLE, that's the highest honor. ok so now we need a wetsuit and open water
A: already done 😎 i bought a second hand orca wetsuit on olx last weekend, 120 euros from a guy in almada who quit triathlon
B: nice find. does it fit? it should feel like a tight hug, not like you can't breathe
A: it's tight like a sausage but i can breathe. marta laughed for 5 minutes when i tried it on in the living room || IMG: a man in a black orca wetsuit standing stiffly in a living room with his arms held out, a woman laughing on the sofa behind him
B: lol that's the correct reaction. try it in the pool first if vasco allows
A: ok. how are you, how's the porto half training?
B: ugh. i tore my calf on wednesday. pushing nikau in the running buggy up a hill in foz
A: ohh no! is it bad?
B: grade 1, so small, but i can't run for about three weeks. so the porto half might be a "walk and watch" situation
A: now i can tell you to be patient 😅 10 days now is better than 10 weeks
B: hahaha using my words against me. fair. i'm swimming and doing the bike instead, same as i'd tell you
A: and for me, the evening shift finally starts next week, from monday
B: perfect timing. so from monday your swims move to 7am with vasco?
A: yes, tuesday and thursday 7am. and long ride on saturday mornings to cascais
B: love it, riding the race course is gold. ok i'll update the plan tonight
"""),
# ---------------------------------------------------------------- s06
("2023-04-01T13:40", """
A: i did it. first open water swim this morning at carcavelos || IMG: a sandy beach in the morning with a calm grey-green sea and a stone fort on the point, an orange and a yellow swim cap lying on a towel
B: how was it?? tell me everything
A: honestly the first 5 minutes were terrible. the water was 15 degrees and when i put my face in i couldn't breathe, i had to stop and hold onto rui
B: that cold shock is totally normal, your body gasps. did it settle?
A: after like 5 min yes. then we swam maybe 800m along the beach. i couldn't see anything underwater, it was green and dark, but i didn't panic
B: that's a huge win. the panic thing was your biggest fear in january
A: i know. rui said i swam in a zig zag like a drunk fish but i don't care
B: sighting is a skill, we'll practise. lift your eyes every 6 strokes, pick something big on the shore, like the fort
A: the forte de são julião! that's easy to see
B: perfect. how's the shin?
A: all good, i'm running 40 min now. no pain
B: great. any other news? you sound in a good mood
A: yes actually. marta and i are moving in together! her place in campo de ourique, we move on may 6
B: oh that's lovely congrats!! goodbye 78 stairs?
A: goodbye 78 stairs. her building has an elevator and a little garage in the basement for the bike
B: that's a big upgrade for both bike and knees. are you excited?
A: very. a bit scared of the cat question though, she's allergic, i'm scared of dogs, so we have decided on fish
B: fish are a very peaceful compromise. and your race calendar, did you decide on a sprint to practise?
A: yes, the sprint in oeiras on april 16. 750 swim, 20 bike, 5 run
B: great, that's the perfect dress rehearsal. we'll treat it as training, not as the big day
A: how is your calf?
B: better! jogging again, slowly. i'm not doing the porto half though, i've accepted it. i'll go cheer with nikau and eat a francesinha
"""),
# ---------------------------------------------------------------- s07
("2023-04-19T19:10", """
A: sorry for the late report, i've been sleeping since sunday 😴
B: haha no worries! i saw the results but tell me how it FELT
A: it was amazing. i finished in 1:21:44, 14th in my age group out of 52
A: the finish 📸 || IMG: a man in a black and yellow trisuit crossing a finish line arch with both arms up, race number 317 written on his arm, the sea behind him
B: look at that finish!! arms up, that's the spirit
A: marta took it, she screamed so loud the announcer looked at her
B: ok walk me through. swim?
A: the swim was chaos, 200 people starting at once, someone kicked me in the goggles. but i didn't stop. 16 minutes
B: 16 for 750 in a mass start, first race, very respectable. transition?
A: transition was a disaster. i forgot to take off my swim cap before putting on the helmet lol. and i couldn't get my left foot out of the wetsuit
B: hahaha everyone does the helmet over cap thing once. we'll practise transitions in the park
A: the bike was fun, i passed a lot of people. and the run i felt strong until the last km
B: your run split was 23:10 which is great off the bike. how's the shin after?
A: no problem! the achilles is a little tight but ok
B: good. take 2 easy days. honestly diego, for 3 months of proper training this is a really good result
A: obrigado coach. rui beat me by 4 minutes but he's been doing this for 5 years so
B: 5 years vs 3 months, you're doing fine. anything you want to change for cascais?
A: more swimming in the sea. and learn to eat on the bike, i only had water and i was starving on the run
B: yes we'll start a fuelling plan. for the half you'll need something like 60-90g carbs an hour
A: that sounds like a lot of gels
B: it's a lot of gels 😄 we'll test different ones on long rides
"""),
# ---------------------------------------------------------------- s08
("2023-05-13T10:30", """
A: aroha i have bad news
B: oh no, what happened?
A: my bike was stolen. the allez. someone broke into the garage in marta's building on thursday night and took it and two others
B: no!!! oh diego i'm so sorry. were you there?
A: no, we found out friday morning, the lock was cut. the police came but they said bikes basically never come back
B: ugh, infuriating. do you have home insurance that covers it?
A: marta's insurance maybe, we're checking. but the bike was old so it won't be much
B: ok. first, don't stress about training this week, we'll swap the bike sessions for the spin bike at the gym or the trainer... oh wait
A: yeah the trainer needs a bike lol. i'll do spin class at the gym
B: haha perfect. and this might be a sign to get something better for the race anyway
A: that's what rui said. he's already sending me links
B: let's chat about budget before rui convinces you to buy a 6000 euro tt bike
A: i have maybe 1500. i saved some money for the race and the trip
B: that's a good budget for a solid used road bike with clip on aero bars. honestly for a first half ironman that's what i'd recommend
A: ok good. i didn't want a spaceship
B: and apart from the heartbreak, how's the new place?
A: the move was last weekend and it went well! marta's brothers helped, we carried everything in 4 hours. the apartment is so bright
B: and the elevator!!
A: and the elevator 😍 we also got the fish. two goldfish, we named them bitoque and prego
B: hahaha steak sandwich fish. that's so portuguese
A: marta named them, she says they're like a meal combo. anything fun on your side this weekend?
B: actually it's my birthday tomorrow! 36 🎂 tiago is taking me for seafood at a place in matosinhos, and my mum is video calling from rotorua at some ungodly hour
A: parabéns antecipados!! eat some percebes for me
"""),
# ---------------------------------------------------------------- s09
("2023-06-03T17:45", """
A: look!! || IMG: a white and matte black road bike with clip-on aero bars leaning against a yellow tiled wall, a pair of new black cycling shoes on the ground beside it
A: new bike day 🚴
B: OOOH. tell me about it
A: it's a used cube litening, carbon, 2020. i bought it yesterday from a guy in cascais who is moving to switzerland. 1,450 euros with the aero bars
B: that's a great bike for the money. carbon frame, good groupset?
A: shimano ultegra. it's much lighter than the allez, i can lift it with one finger
B: lol ok but don't be a hero, get a bike fit before you do long rides on it
A: already booked! next tuesday at a shop in parque das nações
B: perfect. tell the fitter you'll be in aero a lot, and mention your achilles
A: ok. also i bought a proper u lock this time. and it lives inside the apartment now, not the garage
B: good. bitoque and prego can guard it
A: haha. marta says the bike is more expensive than her car, which is true, her car is a 2006 fiat punto
B: 😂 how's training otherwise, I saw a good swim on wednesday
A: yes!! 2000m in the pool in 38 min. and sea swims every saturday with rui at carcavelos now, the water is getting warmer
B: love it. how's the sighting?
A: better. i swim straighter. i still breathe only on the right but vasco is working on it
B: bilateral breathing will help if the waves are on your right in cascais. keep at it
A: ok. how's nikau? and your running?
B: nikau has discovered the word "no" and uses it for everything. running is back to normal, calf is fine
A: good! no more buggy hills
B: haha we only do flat buggy runs now. ok once the bike fit is done, the long rides start going up to 3 hours
A: 3 hours. ok. i'll buy more gels
"""),
# ---------------------------------------------------------------- s10
("2023-06-24T08:55", """
A: bom dia! big news from my side
B: ooh tell me
A: i left rádio clara. i got a job at a recording studio in marvila, estúdio farol. i started on monday
B: congrats!!! that's a big change. what will you be doing?
A: mixing and recording, mostly bands and some podcasts. and the hours are normal, 10 to 7. no more nights or evenings
B: diego that's amazing for you AND for training. mornings are yours
A: yes. i can swim 7am and be at work by 10. and marta is happy, we actually see each other at dinner now
B: it's like you're a real couple who lives together lol
A: exactly 😂 this week we recorded a fado singer, she was 80 years old and she did every song in one take
B: that gives me chills. ok and how did the bike fit go?
A: really good, the fitter lowered the saddle 1 cm and changed the aero bar position. my hip pain is gone
B: excellent. i noticed the power on your ride last sunday was steadier. you averaged 205w for 2h30
A: yes it felt much better. i rode to guincho and back, the wind was terrible on the way back
B: guincho wind is real training. that's exactly what you'll get in cascais
A: and you, you said you had news too?
B: yes! we moved last weekend. we left porto, we're in ericeira now
A: ericeira! the surfing town. why?
B: tiago got a job at a surf school there and i've always wanted to live by a big beach. and i can coach from anywhere with wifi
A: that's so cool. and now you're close to lisbon, 45 minutes
B: yes! so i can actually come watch you race in cascais in person
A: that makes me nervous and happy 😅
B: haha good. nikau already loves the beach, he eats sand || IMG: a toddler in a striped sun hat sitting in the sand at a wide surf beach with sand on his cheeks, surfers in the water behind him
"""),
# ---------------------------------------------------------------- s11
("2023-07-12T21:05", """
A: boa noite coach, quick question about the olympic race
B: go for it
A: it's in peniche on the 30th. should i race it hard or is it training?
B: race it properly. it's your last big test before cascais. i want you practising race nutrition and the wetsuit swim at full effort
A: ok. it's 1500 swim, 40 bike, 10 run. the swim is in the sea at the baleal beach
B: nice, baleal can be choppy. good practice for cascais
A: yesterday was the long brick you gave me, 3h bike then 40 min run. it was 36 degrees
B: i saw, you did well. how did you feel on the run?
A: bad. my calves cramped at minute 25 and i had to walk for a bit
B: heat and sodium. you were probably low on salt. how much did you drink?
A: 2 bottles in 3 hours
B: way too little for 36 degrees. you need more like a bottle an hour in that heat and some electrolyte tabs. we'll fix it
A: ok. gels went well though, i like the banana ones. the lemon ones taste like dish soap
B: lol noted, banana only. have you tried them at high intensity yet? that's the test
A: not yet. i'll do it in peniche
B: perfect. anyway, my own news, i got my portuguese B2 result on monday and i PASSED!! || IMG: a language exam certificate reading "português língua estrangeira - nível B2" with the grade "Bom", held up next to a cup of coffee
A: PARABÉNS!! agora falas português melhor que eu
B: hahaha not even close, but i understood that 😄 now i can argue with the people at finanças
A: that's the real final boss of living in portugal
B: truly. how's marta?
A: she's good, very busy. she's going to be at the finish in peniche, and her sister is driving us
B: cheer crew! ok get some sleep, and drink water tomorrow like it's your job
"""),
# ---------------------------------------------------------------- s12
("2023-08-05T12:25", """
A: peniche report, finally
B: yes!! i saw 2:38:10 which i think is amazing for a first olympic. how did it feel?
A: mixed. the swim was rough, big waves, and i got stung by a jellyfish on my neck at the first buoy
B: ouch!! you kept going?
A: yes, i swore a lot underwater. 31 minutes swim. but no panic, that's the important part
B: that's the most important part by far. a january diego would have climbed onto the kayak
A: true lol. the bike was good, 1:12. i drank a bottle an hour like you said and took the salt tabs
B: and the run? no cramps?
A: no cramps!! 49 minutes for the 10k. i was so happy in the last km i high fived a little kid
B: this is all so good. you fixed the nutrition issue in two weeks. how's the jellyfish sting
A: a red line on my neck still, marta put vinegar on it. she says i look like i was attacked by a pirate
B: haha a pirate athlete. honestly, with this result i'm confident about cascais
A: really?
B: really. at this rate i'd guess somewhere around 5:45 to 6:00 if the day is normal
A: under 6 hours would be a dream
B: we'll aim for it. ok i have some news too, i have a new family member
A: ??? a baby?
B: no haha!! a dog. we adopted a rescue dog three days ago, her name is kumara
B: this is her || IMG: a scruffy brown and white medium-sized dog with one floppy ear lying on a beach towel next to a toddler's plastic bucket
A: she's cute... and i say this as someone who is scared of dogs
B: she's the gentlest dog in the world, she'll cure your fear when you come visit
A: we'll see 😅 why kumara?
B: it's the maori word for sweet potato, and she's the colour of one. nikau chose it, kind of
"""),
# ---------------------------------------------------------------- s13
("2023-08-30T18:50", """
A: olá! i'm back in lisbon, we got back from são miguel on monday
B: welcome back! how was the azores? and the wedding?
A: the wedding was beautiful. marta's cousin got married on the 19th in a little church in ponta delgada and then the party was in a quinta, 300 people, it went until 5am
B: 5am!! did you dance?
A: a lot. i also ate too much, the azorean cheese is dangerous
B: 😂 and training? i saw some swims in the ocean in the app
A: yes, i swam in the sea almost every day. the water was 23 degrees and so clear, i could see the fish. it's so different from carcavelos
B: those are magic swims. did you ride?
A: i rented a road bike for 3 days. i rode around the lagoa das sete cidades, the climbs are crazy || IMG: a rented red road bike leaning on a stone wall above a volcanic crater holding two lakes, one blue and one green
B: screenshot from your file 👀 || IMG: a training graph from an app showing a 4 hour ride with 1,900 meters of climbing, the power line spiking on each climb
B: i saw this one! 1900m of climbing, that was a monster
A: my legs still hurt. marta's family thinks i am crazy
B: a little crazy is required for this sport. ok, now the serious part: 8 weeks to go. this is the big block
A: i'm ready. what does it look like?
B: three weeks build, one recovery, three weeks build with race simulations, then taper. your longest ride will be 90km with a 15km run off it
A: ok. and the swim?
B: at least one sea swim of 2km every week. and you're doing the full distance at race pace in mid september
A: ok. and how's kumara? and the fear of dogs plan?
B: she's perfect. she sleeps on nikau's bed now. and you still owe me a visit to ericeira
A: after the race i promise. with marta. she loves ericeira
B: oh and i did a silly thing, i signed up for my first race since kona. just the 3km ocean swim at ribeira d'ilhas next month, nothing crazy
A: whaaat! coach is racing! i want a full report
"""),
# ---------------------------------------------------------------- s14
("2023-09-23T15:30", """
A: aroha, i fell off the bike 😞
B: oh no!! are you ok? when?
A: on monday, on the ride to cascais. a car opened its door near estoril and i braked too hard and went down
B: oh god. what's hurt?
A: road rash on my left hip and elbow, and a big bruise. nothing broken. marta checked everything and took me to the hospital to be sure, the x-ray was fine
B: thank god. and the bike?
A: the rear derailleur was bent, the shop fixed it on wednesday for 60 euros. the frame is ok
B: ok good. no long ride this weekend, let the skin heal. swimming in the sea with open wounds also no, infection risk. pool only once it's scabbed
A: yes. i did 2 easy runs, that felt ok
B: good. you're still on track, one missed week doesn't change anything. the fitness is there
A: i know. i was scared it was over
B: it's not over at all. we have 4 weeks. i'd rather you miss a week than ride hurt
A: ok. and how was your ocean swim last sunday?? you didn't tell me
B: 2nd woman overall!! 52 minutes, the water was wild and i swallowed half the atlantic. nikau and kumara were on the beach barking and cheering
A: amazing!! ok. also can i tell you a secret? marta can't know
B: ooh. my lips are sealed
A: i bought a ring. i'm going to propose after the race
B: DIEGO!!! oh my god that's wonderful!!
A: i'm so nervous. i want to do it at boca do inferno the day after, because that's where we had our first date
B: that's so romantic. how did you pick the ring?
A: her sister helped me. it's her grandmother's style, an old portuguese filigree ring in gold, from a jeweler in the baixa || IMG: a delicate gold filigree ring with a heart-shaped pattern sitting in an open dark blue velvet box
B: i'm going to cry. ok so now you have two big days
A: yes. i'm more scared of the second one
B: hahaha she's going to say yes. ok the plan for next week is in the app, lots of easy stuff while you heal
"""),
# ---------------------------------------------------------------- s15
("2023-10-26T20:10", """
A: ok i'm finally ready to talk. sunday was the best day of my life. and then monday was better
B: i've been waiting!!!! i was at the finish and i still want to hear everything
A: 5:47:12!!!! i still can't believe it
B: you smashed it. and i saw you cross the line, i was screaming next to marta
A: the proof 🏅 || IMG: a tired smiling man wrapped in a foil blanket holding up a finisher medal in the shape of a wave, a woman with curly dark hair kissing his cheek
A: marta's sister took this. i look like a baked potato
B: you look like a half ironman!! ok splits?
A: swim 41 minutes, the sea was calm thank god. bike 2:59, the wind at guincho was bad but i stayed in aero. run 1:58
B: your run was perfect pacing. did the achilles hold up?
A: it got tight at km 15 but i just kept going. and no cramps, the salt plan worked
B: proud of you diego. 10 months ago you couldn't swim 100m
A: i know. i was thinking about that in the water. and about senhor vasco shouting
B: 😂 ok and monday???
A: i did it. at boca do inferno at sunset. she cried, i cried, some tourists clapped
B: AND???
A: she said yes!!! 💍
B: AAAAAH congratulations!!!! i'm so happy for you both
A: obrigado! we're thinking of getting married in the azores next year, at the same quinta as her cousin
B: that would be perfect. ok so the question every coach asks after a first half... what's next?
A: rui wants me to do a full ironman. maybe lanzarote in 2025
B: hahaha of course he does. let's talk in december, first you rest for two weeks. no plans, no watch
A: ok coach. and now i owe you a visit to ericeira. and to kumara
B: she's ready for you. bring marta, bring the ring, we'll have a braai, sorry, a churrasco 😄
"""),
],
"questions": [
# ---- single_hop
("single_hop", "What is the name of Aroha's coaching business?", "Tide Line Coaching", ["s01:tide line coaching"]),
("single_hop", "What bike did Diego ride when he started working with Aroha?", "an old aluminium 2014 Specialized Allez road bike", ["s01:2014 specialized allez"]),
("single_hop", "What does Diego's girlfriend Marta do for a living?", "she is a physiotherapist", ["s01:she's a physiotherapist"]),
("single_hop", "Where did Diego work when he began training for the half ironman, and on what shift?", "as a sound engineer at Rádio Clara, mostly on the night shift (11pm to 7am)", ["s01:rádio clara"]),
("single_hop", "What threshold heart rate did Aroha set for Diego after his run test?", "172 bpm", ["s02:172"]),
("single_hop", "Who coaches Diego's masters swim group?", "Senhor Vasco, a shouty coach of about 70", ["s02:senhor vasco"]),
("single_hop", "What FTP did Diego's first bike test give him?", "about 231 watts", ["s03:231"]),
("single_hop", "What was Aroha's last race before she decided to race again, and how did she place?", "Kona in 2016, 11th in her age group", ["s03:kona 2016", "s03:11th in my age group"]),
("single_hop", "What did Marta and Aroha blame Diego's shin pain on?", "running too much on the calçada in new carbon-plate shoes that he wore for every run", ["s04:calçada", "s04:carbon plate shoes"]),
("single_hop", "How many stairs did Diego have to climb to his Alfama apartment?", "78", ["s04:78 of them"]),
("single_hop", "Where did Diego get his wetsuit and how much did it cost?", "a second-hand Orca wetsuit bought on OLX from a man in Almada for 120 euros", ["s05:second hand orca wetsuit"]),
("single_hop", "How did Aroha tear her calf?", "pushing Nikau in the running buggy up a hill in Foz", ["s05:running buggy"]),
("single_hop", "How cold was the sea on Diego's first open-water swim?", "15 degrees Celsius", ["s06:15 degrees"]),
("single_hop", "What was Diego's result at the Oeiras sprint triathlon?", "1:21:44, 14th of 52 in his age group", ["s07:1:21:44"]),
("single_hop", "What race number was written on Diego's arm in his sprint finish photo?", "317", ["s07:race number 317"]),
("single_hop", "What are the names of Diego and Marta's goldfish?", "Bitoque and Prego", ["s08:bitoque and prego"]),
("single_hop", "What bike did Diego buy to replace his stolen one?", "a used 2020 carbon Cube Litening with Shimano Ultegra and clip-on aero bars, for 1,450 euros", ["s09:cube litening", "s09:shimano ultegra"]),
("single_hop", "What car does Marta drive?", "a 2006 Fiat Punto", ["s09:fiat punto"]),
("single_hop", "Where does Diego work after leaving the radio station?", "Estúdio Farol, a recording studio in Marvila", ["s10:estúdio farol"]),
("single_hop", "Which gel flavour does Diego dislike?", "lemon (he says it tastes like dish soap); he likes banana", ["s11:lemon ones taste like dish soap"]),
("single_hop", "What does the name of Aroha's dog mean?", "it's the Māori word for sweet potato", ["s12:maori word for sweet potato"]),
("single_hop", "What shape was Diego's Cascais finisher medal?", "a wave", ["s15:shape of a wave"]),
("single_hop", "How old was Aroha's son Nikau in January 2023?", "he had just turned 2", ["s02:just turned 2"]),
("single_hop", "What does Nikau like to do with Aroha's phone at her in-laws' place?", "throw it in the dog bowl", ["s02:dog bowl"]),
("single_hop", "Why did Aroha's family move to Ericeira?", "her partner Tiago got a job at a surf school there, and she had always wanted to live by a big beach", ["s10:surf school"]),
("single_hop", "Where was Tiago taking Aroha for her 36th birthday?", "for seafood at a place in Matosinhos", ["s08:matosinhos"]),
("single_hop", "What grade did Aroha get on her Portuguese B2 exam?", "Bom", ["s11:grade \"bom\""]),
("single_hop", "Which exercises were on the sheet Marta made for Diego's shin?", "calf raises 3x15, toe walks and ankle circles", ["s04:diego - canelas"]),
("single_hop", "What does the engagement ring Diego bought look like?", "a delicate old-style Portuguese gold filigree ring with a heart-shaped pattern", ["s14:heart-shaped pattern"]),
# ---- multi_hop
("multi_hop", "How did Diego's continuous swimming distance progress between January and March 2023?", "from about 100 m to 400 m, then 800 m, then the full 1500 m", ["s01:100m freestyle", "s02:400m without stopping", "s04:800m continuous", "s05:1500m without stopping"]),
("multi_hop", "How did Diego's working hours change over the year?", "night shift (11pm-7am) at Rádio Clara, then evenings (4pm-midnight) from March, then normal 10-to-7 hours at Estúdio Farol from June", ["s01:11pm to 7am", "s03:4pm to midnight", "s10:10 to 7"]),
("multi_hop", "What happened to the bike Diego started the year with, and what did he replace it with?", "his 2014 Specialized Allez was stolen from the garage of Marta's building; he replaced it with a used Cube Litening", ["s01:2014 specialized allez", "s08:my bike was stolen", "s09:cube litening"]),
("multi_hop", "Where has Aroha lived during the conversation?", "in Porto (running in Foz), then Ericeira from June 2023", ["s05:hill in foz", "s10:we're in ericeira now"]),
("multi_hop", "How did Diego's Cascais finishing time compare with Aroha's prediction?", "she predicted about 5:45 to 6:00 and he finished in 5:47:12, inside that range and under 6 hours", ["s12:5:45 to 6:00", "s15:5:47:12"]),
("multi_hop", "What two physical setbacks did Diego have during his training?", "shin splints in his left shin in February, and a bike crash in September that left road rash on his left hip and elbow", ["s04:my left shin", "s14:road rash on my left hip"]),
("multi_hop", "Why didn't Aroha run the Porto half marathon she had planned?", "she tore her calf (grade 1) pushing Nikau's buggy and decided to skip it and cheer instead", ["s03:porto half marathon in may", "s05:tore my calf", "s06:not doing the porto half"]),
("multi_hop", "Why did Diego and Marta end up with fish as pets?", "Marta is allergic to cats and Diego is scared of dogs, so they got two goldfish", ["s01:allergic to cats", "s06:decided on fish", "s08:two goldfish"]),
("multi_hop", "Where did Diego propose to Marta, why there, and what was her answer?", "at Boca do Inferno, where they had their first date; she said yes", ["s14:boca do inferno", "s15:she said yes"]),
("multi_hop", "How did Diego solve the cramping he had on his hot brick workout?", "by drinking about a bottle an hour and taking salt/electrolyte tabs; he had no cramps in Peniche", ["s11:calves cramped", "s11:bottle an hour", "s12:no cramps!!"]),
("multi_hop", "Where are Diego and Marta thinking of getting married, and why that place?", "in the Azores, at the same quinta where Marta's cousin had her wedding party", ["s15:married in the azores", "s13:party was in a quinta"]),
("multi_hop", "What was Aroha's first race since Kona, and how did she do?", "the 3 km ocean swim at Ribeira d'Ilhas in September 2023; she was 2nd woman overall in 52 minutes", ["s03:kona 2016", "s13:ribeira d'ilhas", "s14:2nd woman overall"]),
("multi_hop", "How did Marta's sister help Diego around the race and the proposal?", "she helped him choose the engagement ring and took the finish-line photo of him with Marta", ["s14:her sister helped me", "s15:marta's sister took this"]),
# ---- temporal
("temporal", "On what date did Diego do his run threshold test?", "2023-01-19", ["s02:test on thursday"]),
("temporal", "On what date did Diego first swim 400 m without stopping?", "2023-01-20", ["s02:yesterday i swam 400m"]),
("temporal", "On what date did Diego do his first bike FTP test?", "2023-02-03", ["s03:bike test yesterday"]),
("temporal", "On what date was Marta's 31st birthday?", "2023-02-01", ["s03:marta's birthday on wednesday"]),
("temporal", "On what day did Diego's shin start hurting?", "2023-02-21", ["s04:four days ago"]),
("temporal", "On what date did Aroha tear her calf?", "2023-03-08", ["s05:tore my calf on wednesday"]),
("temporal", "On what night was Diego's bike stolen?", "2023-05-11", ["s08:on thursday night"]),
("temporal", "On what date did Diego buy the Cube Litening?", "2023-06-02", ["s09:bought it yesterday"]),
("temporal", "On what date did Diego start at the recording studio?", "2023-06-19", ["s10:started on monday"]),
("temporal", "On what date did Aroha get the result of her Portuguese B2 exam?", "2023-07-10", ["s11:b2 result on monday"]),
("temporal", "On what date did Aroha adopt Kumara?", "2023-08-02", ["s12:three days ago"]),
("temporal", "On what date was Aroha's 36th birthday?", "2023-05-14", ["s08:my birthday tomorrow"]),
("temporal", "On what date did Aroha race the Ribeira d'Ilhas ocean swim?", "2023-09-17", ["s14:ocean swim last sunday"]),
("temporal", "On what date did Diego crash his bike near Estoril?", "2023-09-18", ["s14:on monday, on the ride"]),
("temporal", "On what date did Diego propose to Marta?", "2023-10-23", ["s15:monday was better", "s15:boca do inferno at sunset"]),
# ---- open_domain
("open_domain", "Which ocean did Diego do his sea swims in at Carcavelos?", "the Atlantic Ocean", ["s06:carcavelos"]),
("open_domain", "What total distance did Diego cover in the half ironman in Cascais?", "about 113 km (70.3 miles): 1.9 km swim, 90 km bike, 21.1 km run", ["s01:half ironman in cascais", "s15:5:47:12"]),
("open_domain", "Where is the race Aroha did in 2016, and what is it?", "Kona, on the Big Island of Hawaii: the Ironman World Championship", ["s03:kona 2016"]),
("open_domain", "What is the total distance of the Peniche race Diego did?", "51.5 km (standard olympic distance)", ["s11:1500 swim, 40 bike, 10 run"]),
("open_domain", "What does Aroha's opening greeting suggest about where she's from?", "\"kia ora\" is a Māori greeting, so she is from New Zealand", ["s01:kia ora"]),
("open_domain", "Which countries do Lanzarote, where Diego might race a full Ironman, and São Miguel, where he went in August, belong to?", "Lanzarote is in the Canary Islands, part of Spain; São Miguel is in the Azores, part of Portugal", ["s15:lanzarote", "s13:são miguel"]),
("open_domain", "What kind of landscape did Diego ride around on São Miguel, based on his photo?", "a volcanic crater (caldera) holding two lakes, one blue and one green: the Sete Cidades lakes", ["s13:lagoa das sete cidades"]),
("open_domain", "In which country does Aroha's mother live, judging by where she video-calls from?", "New Zealand (Rotorua)", ["s08:rotorua"]),
# ---- unanswerable
("unanswerable", "What is Marta's surname?", "not mentioned", []),
("unanswerable", "What was Rui's finishing time at the Cascais half ironman the year before?", "not mentioned", []),
("unanswerable", "What brand were the carbon-plate shoes Diego bought on sale?", "not mentioned", []),
("unanswerable", "How much did Diego pay for Marta's engagement ring?", "not mentioned", []),
("unanswerable", "What was the name of the 80-year-old fado singer Diego recorded?", "not mentioned", []),
("unanswerable", "What is the name of the surf school where Tiago works?", "not mentioned", []),
("unanswerable", "How much did the insurance pay Diego for his stolen bike?", "not mentioned", []),
("unanswerable", "What date have Diego and Marta set for their wedding?", "not mentioned", []),
("unanswerable", "What was Aroha's finishing time at Kona in 2016?", "not mentioned", []),
("unanswerable", "How much did Diego's bike fit cost?", "not mentioned", []),
],
}
