# ch3: Farid Haddad (owner, civil engineer and backyard beekeeper in Melbourne)
#      and his younger sister Nour Haddad (architect in Tokyo, later Melbourne)
CONV = {
"id": "ch3",
"tz": "Australia/Melbourne",
"A": ("farid", "Farid"),
"B": ("nour", "Nour"),
"asked_at": "2024-12-01T10:00:00+11:00",
"sessions": [
# ---------------------------------------------------------------- s01
("2024-01-14T20:05", """
B: farid!! happy new year from tokyo 🎍 sorry i missed your call on the 1st, i was at a temple with like 4 million people
A: nour! happy new year habibti. no stress, the kids just wanted to show you their sparklers
B: aww. tell yasmin and karim their auntie says hi. ok news: i came 3rd at the bouldering comp yesterday!!!
A: whaaat, mabrook! is that the one at your gym?
B: yeah at ogikubo boulder lab, the winter comp. 3rd in women's intermediate. i flashed the last problem and screamed so loud the japanese guys clapped politely
A: hahaha that's so you. did you win anything
B: a chalk bag shaped like a rice ball and a voucher for a climbing shoe resole. peak prizes
A: love that. ok i also have news, i'm officially a beekeeper 🐝
B: WAIT. since when
A: since boxing day! i set up the hive down the back of the yard near the lemon tree and picked up the bees from a guy in kinglake that morning || IMG: a white wooden beehive with a blue lid at the back of a garden next to a lemon tree, a small girl in a bee veil watching from a distance
B: farid you're scared of wasps
A: bees are different!! they're gentle. mostly. i got stung once on the wrist and sophie laughed for ten minutes
B: lol as she should. what does sophie think of the whole thing
A: she says as long as there's honey by easter and nobody goes to hospital she's fine with it. the kids love watching from the window
B: ok that's actually cute. how's baba? mama said something about the cardiologist and then changed the subject
A: yeah that's the other thing. he had the appointment three days ago. they want to do a bypass, his arteries are pretty blocked
B: what?? mama didn't say it was that serious
A: you know mama, she doesn't want you worrying from japan. the doctor said it's very routine and he's strong, but they want to do it soon
B: ok. i'm coming home for it. i don't care, i'll take leave
A: i figured you'd say that. they'll give him a date this week, i'll tell you as soon as i know
B: thank you. i'm going to go cry in a convenience store now
A: get a melon bread too. love you, he'll be ok inshallah
"""),
# ---------------------------------------------------------------- s02
("2024-01-27T14:40", """
A: ok date is set. baba's surgery is thursday the 8th at westmead
B: ok. i booked flights this morning, i land in sydney on the 6th and i'll stay till the 10th
A: perfect. i'm flying up on the 7th with sophie, mama's sister will watch the kids... no wait, sophie's mum is coming to melbourne to watch them
B: lol you had a crisis there. how's baba feeling about it
A: honestly calm. he keeps saying "they're just changing the pipes, like a plumber". he's more upset that he can't have his sunday argileh anymore
B: sounds like him. and mama?
A: cooking like it's a war. the freezer is full of kibbeh for when he's home
B: classic. ok can i distract you with something nice
A: please
B: ren and i went skiing in nagano last weekend!! first time for both of us on real snow
B: proof 🎿 || IMG: two people in matching orange ski jackets making peace signs on a snowy slope with tall snow-covered pine trees behind them
A: look at you two! you look like traffic cones
B: rude but accurate. ren fell like 40 times. i fell 41, i'm counting the one in the hotel onsen
A: how did you fall in an onsen
B: it's slippery!!! and everyone was naked so i'd prefer not to talk about it
A: hahahaha. ok i had a good one too, yesterday at the australia day bbq at sophie's brother's place karim ate a whole lamington and then threw it up on his uncle's dog
B: nooo. poor dog
A: the dog didn't mind. it ate it again
B: FARID i'm eating
A: sorry. oh and my team won in the over 35s league last sunday, 3-1, i scored the third
B: a goal!! at your age!!
A: i'm 38 not 80. ok go enjoy your saturday, send more ski pics
"""),
# ---------------------------------------------------------------- s03
("2024-02-11T19:30", """
B: back in tokyo. flew in yesterday and i feel like a zombie
A: thanks for coming habibti. it meant so much to him. he told the nurse his "daughter the architect" came from japan like 5 times
B: lol he told the surgeon too. how's he today?
A: good! mama says he walked to the end of the corridor twice and complained about the hospital tea the whole way
A: sent by mama this morning || IMG: an older man with a grey moustache in a hospital bed giving a thumbs up, holding a paper cup of tea, a bunch of yellow flowers on the side table
B: look at him 🥹 that's the face of a man who hates that tea
A: the surgeon said the bypass went perfectly, four grafts, and his heart is "like a 60 year old's" now. baba was offended because he's 67
B: only baba would be insulted by that. when does he go home?
A: probably wednesday or thursday. then cardiac rehab for 12 weeks
B: and no more argileh forever?
A: forever. mama hid the pipe. he thinks it's in the garage, it's actually at aunty rima's
B: lmaooo. how are you doing though? you did so much running around
A: tired. back at work tomorrow, the tunnel project doesn't care about my feelings. but ok
B: you're the big brother, you always do the running around. i see it
A: thanks nour. anyway how was the flight
B: the guy next to me ate dried squid for 9 hours. i smell like the ocean
A: lol. how's ren, did he hold the fort
B: he did, he watered my plants and left me onigiri in the fridge. he's sweet. a bit distracted lately with work but sweet
A: good. tell him thanks from me
B: will do. also mama sent me back with 2 kilos of za'atar in my suitcase, customs guy looked at me like i was smuggling
A: you kind of were
"""),
# ---------------------------------------------------------------- s04
("2024-03-02T11:15", """
A: so i did something stupid
B: oh no. what happened
A: at soccer last sunday. i went to turn and my knee just went pop. i went down like a sack of potatoes
B: farid!!! is it bad?
A: had the MRI on wednesday. full ACL tear, left knee, and a bit of meniscus damage
B: oh no no. that's a surgery thing right?
A: yeah. the surgeon says reconstruction and then like 9 to 12 months before i play again
B: 12 months!! ugh i'm so sorry
A: the worst part is sophie's face. she said "you're 38 and you play like you're 19" which is fair
B: it IS fair though. are you on crutches?
A: yeah. and in a brace. yasmin has decided to decorate the brace with stickers, it has unicorns on it now || IMG: a black knee brace on a leg resting on a sofa, covered in unicorn and rainbow stickers with a bee drawn in marker
B: that's the best brace in melbourne. can you work?
A: from home mostly. i can't really go down into the tunnel site on crutches. my boss has been good about it
B: good. does mama know?
A: no and DON'T tell her, she has enough with baba's rehab. i'll tell her when the surgery date is set
B: ok my lips are sealed. i also have news but now it feels weird to be happy
A: no, be happy! please, i need it
B: ok. i got promoted on monday!! i'm a project architect now
A: NOUR. mabrook!!! that's huge
B: thank you!!! i'm leading a small team on a library in kanazawa. it's wooden and has a reading room that looks out on a rice field
A: that sounds beautiful. baba is going to tell every single person at church
B: he already knows, i called him first. he cried a little and then told me about his rehab bike for 20 minutes
A: of course he did. so proud of you
"""),
# ---------------------------------------------------------------- s05
("2024-03-20T18:45", """
A: first harvest!!! 🍯 || IMG: nine glass jars of golden honey lined up on a kitchen windowsill, each with a hand-drawn label reading "haddad hill honey" and a little bee doodle
B: OMG farid!! it's so golden
A: we pulled the frames on sunday. 11 kilos from one hive!! sophie's dad did the heavy lifting because of my knee
B: 11 kilos?? is that a lot
A: for a first year hive it's really good apparently. the guy from the beekeeping club was impressed
B: haddad hill honey lol. there's no hill
A: yasmin drew the labels and she insisted. we live on the only flat street in coburg and she doesn't care
B: send me a jar!! i'll pay shipping
A: already put one aside for you. and one for baba and mama
B: yay. how's the knee?
A: surgery date is set. april 4. i finally told mama and she immediately said she'd fly down to cook for us
B: of course she did. is baba ok enough for her to leave him?
A: he's doing great, cardiac rehab 3 times a week. aunty rima is going to check on him
B: good. ok i have a small injury too but it's nothing compared to yours
A: what did you do
B: i hurt my finger climbing two weeks ago today. the ring finger on my right hand, it's a pulley strain. i heard a little pop on a crimpy problem
A: you too with the pop
B: we're a family of poppers. the physio says 6 weeks of no hard climbing and tape it when i go back
A: listen to the physio. don't be me
B: lol ok. also ren and i have been a bit weird lately. he got offered a job transfer to osaka and hasn't decided
A: hmm. how do you feel about it?
B: i don't know. kind of like he's already left in his head. we'll talk this weekend
A: that's hard. call me after if you want, i'm not going anywhere, literally, i'm on crutches
"""),
# ---------------------------------------------------------------- s06
("2024-04-13T16:20", """
A: report from the couch: surgery was nine days ago and i'm alive
B: farid!! sorry i haven't called, how are you feeling??
A: it hurt like hell the first 3 days. now it's ok. they used a bit of my hamstring for the new ligament which is wild
B: they took a piece of you and made another piece of you. that's very sci fi
A: right? physio twice a week. i can bend it to 90 degrees now which is the goal for week 2
B: amazing. and mama's there?
A: she went back to sydney yesterday. she cooked for 8 days straight, our fridge is full of mloukhieh and stuffed zucchini, we're eating like kings
B: jealous. tell sophie she's a saint too
A: she is. she's doing school runs, work, me, the bees. i owe her a holiday
B: you owe her like five holidays
A: fair. how are you? you said you'd talk to ren
B: yeah. we broke up on sunday
A: oh nour. i'm sorry. what happened?
B: he's taking the osaka job. and we kind of realised we'd both been drifting for months. it wasn't a fight, we just sat in the park near my flat and talked and cried
A: that sounds really sad but also kind of mature
B: it is both. he's moving in june. we're still friends i think
A: how are you doing really
B: honestly? i'm ok but tokyo feels really big and lonely this week. and i keep thinking about baba's surgery and your knee and i'm so far away from everyone
A: habibti. you know there's a room here anytime
B: i've actually been thinking about it. coming back to australia. maybe melbourne
A: seriously?? the kids would lose their minds. sophie too
B: i'm just thinking. the library project finishes in july so it would be a good time
A: no pressure. but also yes please
"""),
# ---------------------------------------------------------------- s07
("2024-05-04T10:10", """
B: ok i have done a thing. i applied for three jobs in melbourne
A: NOUR!!! where?
B: two big firms in the cbd and one smaller studio in fitzroy called kerr & lo architects. the fitzroy one is the one i want, they do a lot of public buildings and timber stuff
A: that fits your kanazawa library perfectly
B: exactly. they want a video interview next thursday. it'll be at 7am my time so i'll be in my pyjama bottoms and a blazer
A: business on top, party on the bottom. you'll crush it
B: how's the knee?
A: off the crutches as of tuesday!! walking like a penguin but walking
B: yesss. no more stairs on your bum
A: no more. and i'm back at the office two days a week
B: how was karim's party? i saw mama's facebook post with 100 photos
A: exhibit a || IMG: a green dinosaur-shaped birthday cake with a plastic t-rex on top and a big candle shaped like the number 5, on a picnic table in a backyard
A: it was chaos. 14 kids in the backyard last sunday, a dinosaur piñata, and sophie made the cake
B: the cake is incredible!! i can't believe he's 5
A: me neither. he cried when the piñata broke because he thought the dinosaur died
B: omg baby 😭
A: we had to do a little funeral for the piñata. yasmin gave a speech
B: that's the most haddad thing i've ever heard
A: right? baba and mama came down for it too. baba was walking around the yard like nothing ever happened to him
B: so good. how are the bees?
A: getting ready for winter. less activity, they're eating their own honey now. i'll leave them alone till spring
B: makes sense. ok i need to go prep for the interview, i'm writing answers on post-its
A: you'll be great. send me your portfolio, i'll look at it and say "wow" a lot
"""),
# ---------------------------------------------------------------- s08
("2024-05-25T21:00", """
B: FARID
A: ??? is it good or bad
B: i GOT IT!!! kerr & lo offered me the job on wednesday!!!
A: NOUUUR!!! 🎉🎉🎉 mabrook!!
B: senior architect, timber and public buildings team. and no visa stuff because i'm australian lol, it was easy
A: haha you're a citizen, not a tourist. when do you start?
B: august 5th. so i'd fly back the start of august
A: ok so you're staying with us. the spare room is yours. no arguments
B: are you sure? sophie said yes too?
A: sophie literally screamed when i told her. the kids are already planning what to show you. yasmin wants to introduce you to the bees
B: i'll stay till i find a place, i promise it won't be forever
A: stay as long as you want. mama is going to be unbearable with happiness
B: i told her this morning. she said "finally" and then asked if i'd meet a nice lebanese guy in melbourne
A: lol classic. ok i have a bit of news too
B: tell me
A: i got an offer from a smaller consultancy, arden bridge consulting. they design pedestrian bridges and small civil stuff
B: ooh! you'd leave the tunnel?
A: thinking about it. the tunnel project has been 5 years, i'm kind of done with living underground. and the office is in brunswick, 10 minutes from home instead of an hour
B: that sounds perfect with your knee and the kids
A: yeah. it's a bit less money but more sane. sophie thinks i should take it
B: sophie is always right. take it
A: i think i will. i'll tell my boss on monday
B: look at us. new jobs everywhere
A: the haddads are reinventing ourselves. baba is going to need a spreadsheet
"""),
# ---------------------------------------------------------------- s09
("2024-06-22T13:35", """
A: first week at arden bridge done ✅
B: how was it?? did you start monday?
A: yep monday. the office has a dog, a staffy called pancake, and free coffee, i'm never leaving
B: a dog and coffee, they know how to keep engineers happy
A: and i'm already on a project, a footbridge over the merri creek. steel and timber, you'd like it
B: i DO like it. send me drawings
A: only if you send me the kanazawa library photos
B: deal. it's almost finished, they're putting in the big windows next week
A: how's the packing going
B: overwhelming. i've lived here 6 years, i have so much stuff. i'm shipping 9 boxes and selling everything else
B: my life rn || IMG: a small cluttered tokyo apartment with cardboard boxes stacked by a sliding glass door, a mint green bicycle leaning against the wall with a "for sale" sign taped to it
A: noooo not the mint bike
B: the mint bike is going to a university student for 8,000 yen. i'm sad but it won't fit in a box
A: rip mint bike. and the flight?
B: booked! i fly on august 1, qantas, landing in melbourne in the evening
A: we'll all be at the airport with a sign
B: please not a big sign
A: it'll be a huge sign. karim is going to draw a dinosaur on it
B: ok a dinosaur sign is acceptable
A: and ren? is he gone to osaka yet?
B: he left last week. we had a last ramen together, it was nice. a bit sad
A: proud of you for being so grown up about it
B: thanks. how's the knee? are you running yet
A: jogging on the treadmill 10 minutes at a time. the physio said no soccer until at least december
"""),
# ---------------------------------------------------------------- s10
("2024-07-13T09:50", """
A: so we may have done something
B: what did you do
A: meet dusty || IMG: a fluffy red kelpie puppy with a white blaze on his chest sitting in a cardboard box on a kitchen floor, a small girl's hand reaching in to pat him
B: NO. FARID. A PUPPY??
A: we picked him up yesterday from a farm near ballarat. he's a kelpie cross, 10 weeks old
B: he's the cutest thing i've ever seen. who named him
A: yasmin. because he's "the colour of dust". karim wanted to call him "t rex" so we compromised, his middle name is t rex
B: dusty t rex haddad. incredible
A: he cried all night in the laundry. sophie and i took turns sleeping on the floor next to him
B: with your knee??
A: i lay on a yoga mat with my leg out straight like a plank. very dignified
B: lol. ok so i'm going to live with a puppy
A: and bees. and two kids. you're going to miss your quiet tokyo flat
B: i'm really not. ok my news, my work farewell was on thursday
A: how was it?
B: so nice. the whole office went to karaoke, my boss sang "my way" and cried. they gave me a little wooden model of the kanazawa library
B: this is it || IMG: a small wooden architectural model of a long low building with a sloped roof and a glass wall, sitting on a desk next to a bouquet of white flowers and a card with japanese writing
A: that's so thoughtful. that model is going in a place of honour
B: i'm going to carry it on the plane on my lap
A: and the library is finished?
B: opening in september. i'll miss it but my team will be there
A: you should come back for the opening one day
B: maybe. i also did my last session at ogikubo boulder lab on wednesday. the finger is fine now btw
A: good, no more popping. three weeks and you're here
"""),
# ---------------------------------------------------------------- s11
("2024-08-10T19:15", """
B: ok one week at kerr & lo done!! sending this from the tram
A: how was it?? sorry i couldn't chat at dinner, dusty was eating a shoe
B: yeah about that. the shoe was mine. my climbing shoes. both of them
A: oh no. when??
B: yesterday while i was at work. he got into my room. one shoe is fine-ish, the other has no toe anymore || IMG: a purple climbing shoe with the toe chewed off lying on a bedroom rug, a red puppy looking guilty in the background
A: i'm so sorry. i'll buy you new ones, he's my dog
B: you don't have to. but yes you do
A: deal. how's the job though
B: i love it. the team is small, like 12 people. my first project is a community centre in footscray, lots of timber, a rooftop garden
A: that's perfect. is your boss nice?
B: jenny lo is kind of terrifying and brilliant. she redlined my first drawing in 5 minutes and then bought me a coffee
A: sounds like a good boss
B: yeah. also melbourne winter is SO cold inside. why don't your houses have insulation
A: welcome home. we have hoodies and denial
B: lol. how's the knee?
A: good, jogging outside now. 2 km without pain on thursday
B: yay. honestly living with you guys has been so nice. karim climbs into my bed every morning at 6am
A: sorry. we'll put a lock on your door
B: no don't, i love it. just not the 6am part
A: and yasmin?
B: yasmin asked me to design a house for her barbies. i did a floor plan. she said the kitchen was "too small"
A: she's brutal. she gets that from sophie
B: i'm going to start apartment hunting next week btw. looking at collingwood and fitzroy so i can walk to work
"""),
# ---------------------------------------------------------------- s12
("2024-08-31T12:30", """
B: i signed a lease!!! collingwood, a one bedroom above a bakery on smith street || IMG: a narrow two-storey brick shopfront with a bakery called "golden crumb" on the ground floor and a small balcony with a wrought-iron railing above
A: NOUR!! when did this happen
B: yesterday afternoon. i saw it on tuesday and applied the same night. it has a little balcony and it smells like bread all the time
A: that's a dream. when do you move
B: september 14. and it allows pets!! so i'm going to adopt a cat
A: finally a cat. you always wanted one in tokyo
B: my tokyo landlord would have evicted me. now nothing stops me
A: dusty might be jealous
B: dusty ate my shoes, dusty doesn't get a say
A: fair. mama and baba left for beirut on wednesday btw
B: yes! mama called me from the airport in dubai. baba was already complaining about the coffee
A: they're there for almost two months. baba wants to see his brother in zahle, and mama's going to visit her village in the chouf
B: i'm so glad he's strong enough to travel. back in january i was crying in a convenience store
A: i know. the bypass gave him a new life. he walks 5 km every morning now
B: amazing. also i joined a climbing gym here, crux collective, it's five minutes from the new place
A: how is it compared to tokyo?
B: the grades are harder here lol. and everyone is so tall. but i love it. there's a comp in october
A: you should do it
B: thinking about it. and the finger is 100% now
A: ok good. how's work?
B: great. i presented the footscray concept on thursday and the council people actually clapped
A: clapping council people! that never happens. i've presented to councils, they just stare
"""),
# ---------------------------------------------------------------- s13
("2024-09-28T15:05", """
B: new roommate alert || IMG: a grey tabby cat with white paws curled up inside a cardboard box labelled "fragile - kitchen" in a sunny apartment with wooden floors
B: meet miso 🐱
A: NOUR. look at his little white feet
B: HER little white feet. she's 2, i adopted her from the rspca last sunday
A: she's perfect. and she's already in a box, she's a true cat
B: she lives in that box now. i can't unpack the kitchen stuff because she won't leave it
A: that's the cat tax. how's the apartment? you moved two weeks ago right
B: yes. i love it. i wake up to the smell of croissants. i've gained 2 kilos
A: haha worth it. ok i have bee drama
B: tell me everything
A: on tuesday the bees swarmed!! like half the colony just left and hung in a big ball on the neighbour's lemon tree
A: sophie took this from the deck || IMG: a large brown cluster of honeybees hanging from a lemon tree branch above a wooden fence, a man in a white bee veil holding a cardboard box underneath
B: FARID that's terrifying
A: it's normal in spring apparently, the hive got too crowded. i called sam from the beekeeping club and we shook the branch and the whole ball fell into a box
B: and your neighbour?
A: mrs papadopoulos watched the whole thing from her kitchen window with a coffee. she gave us baklava after
B: lol the baklava is the real reward
A: so now i have two hives. the new one is in a box on the other side of the yard
B: double the honey!!
A: double the bees. sophie says if i get a third she's moving to your place
B: tell her miso and i will have her. how's the knee and the new job
A: knee is really good, i ran 5 km last weekend. and the merri creek bridge design got approved
B: look at you. running and building bridges
A: literally and metaphorically
"""),
# ---------------------------------------------------------------- s14
("2024-10-26T17:40", """
B: had a blast at the climbing comp last saturday!!! sorry i didn't send photos sooner, work has been nuts
A: how did you go?? yasmin keeps asking
B: 5th in open women's!!! out of 38
A: 5th!! that's amazing, your first comp here
B: a friend from the gym took this one || IMG: a woman with a dark ponytail hanging from a purple overhang hold in a climbing gym, crowd below with phones out, a banner reading "crux collective spring send"
B: that's me on the final problem. i didn't top it but i got the zone hold
A: so cool. i'm showing the kids, karim thinks you're spiderman
B: tell him i'm better than spiderman, i don't need webs
A: lol. mama and baba got back last sunday
B: i know!! mama called me from the taxi. how are they?
A: so good. tanned, happy, and they brought back 4 bottles of olive oil from aunty maha's trees and about a kilo of za'atar for each of us
B: more za'atar. my pantry is 50% za'atar at this point
A: there's never enough za'atar. baba said the best part was seeing his brother, they sat on the balcony in zahle every night and played tawleh
B: that makes me so happy. how's his heart?
A: the cardiologist saw him thursday and said everything looks great. he's allowed a little argileh once a month now, mama is furious
B: lmaooo once a month. where's the pipe
A: back from aunty rima's. it's a whole saga
B: and the knee? any soccer news?
A: the surgeon cleared me to go back to soccer in january!! training with the team from december, no contact
B: farid that's huge. please don't pop anything again
A: i'm wearing a brace and playing like a grandpa, i promise. sophie made me sign a contract
B: also... i've been on a couple of dates. with someone from the gym. his name's tom and he's a paramedic
A: OOH. nour!! tell me more
B: no. not yet. but he's nice and he held the rope for me on the lead wall. that's all you get
"""),
# ---------------------------------------------------------------- s15
("2024-11-23T11:25", """
A: christmas planning thread 🎄 mama and baba fly in on december 20
B: yes!! they're staying with you right? my place is tiny and miso would attack baba's ankles
A: yes, with us. christmas lunch at ours, and you're doing boxing day?
B: yes, boxing day at mine. i'll make the knafeh, mama's recipe. she sent me a voice note that was 14 minutes long
A: she also sent me one about the turkey. 11 minutes. she doesn't trust sophie's oven
B: lol. ok also can i bring tom to christmas lunch?
A: ohhh is tom official now?
B: kind of official. we're "seeing each other". he's working christmas morning but he's off from 2
A: of course bring him. but you know baba is going to interrogate him
B: i'm warning him. i told him baba will ask about his parents, his job, his religion, and what he thinks about fairouz
A: lol. ok so honey update, we did the spring harvest last weekend, 17 kilos from both hives
A: mrs papadopoulos already ordered 3 jars. yasmin wants to set up a stall at the school fair
A: and dusty graduated puppy school on thursday! he got a certificate for "most enthusiastic"
A: the graduate || IMG: a red kelpie dog wearing a tiny blue paper graduation cap, sitting next to a certificate that reads "most enthusiastic student" on a wooden floor
B: MOST ENTHUSIASTIC. that's a polite way of saying chaotic
A: the trainer said he's very smart but he jumped on every single dog
B: and my shoes. never forget
A: i did buy you new ones!! 
B: you did. they're nicer than the old ones so dusty did me a favour
A: see. how's work? the footscray centre?
B: we lodged the planning permit on monday! and jenny asked me to lead the next one, a school library in geelong
A: nour that's amazing. another library
A: mabrook again. ok i have to go, karim's soccer, he plays like me, which is to say badly and loudly
B: lol. give him a kiss. see you next weekend for dumplings
"""),
],
"questions": [
# ---- single_hop
("single_hop", "How did Nour place at the winter comp at her Tokyo climbing gym?", "3rd in women's intermediate", ["s01:3rd at the bouldering comp", "s01:3rd in women's intermediate"]),
("single_hop", "What prizes did Nour get at the Ogikubo Boulder Lab winter comp?", "a chalk bag shaped like a rice ball and a voucher for a climbing shoe resole", ["s01:rice ball"]),
("single_hop", "Where did Farid pick up his first bees?", "from a guy in Kinglake", ["s01:kinglake"]),
("single_hop", "At which hospital did Baba have his bypass surgery?", "Westmead", ["s02:westmead"]),
("single_hop", "What were Nour and Ren wearing in the Nagano skiing photo?", "matching orange ski jackets", ["s02:orange ski jackets"]),
("single_hop", "How many grafts did Baba's bypass involve?", "four", ["s03:four grafts"]),
("single_hop", "How old is Farid and Nour's father?", "67", ["s03:he's 67"]),
("single_hop", "Where did Mama hide Baba's argileh pipe after his surgery?", "at Aunty Rima's (Baba thought it was in the garage)", ["s03:mama hid the pipe"]),
("single_hop", "What exactly did Farid injure playing soccer?", "he fully tore the ACL in his left knee, with some meniscus damage", ["s04:full acl tear"]),
("single_hop", "What did Yasmin decorate Farid's knee brace with?", "unicorn stickers", ["s04:unicorns"]),
("single_hop", "What was the first project Nour led after her promotion in Tokyo?", "a wooden library in Kanazawa with a reading room looking out on a rice field", ["s04:library in kanazawa"]),
("single_hop", "What name did Yasmin put on the labels of Farid's honey jars?", "Haddad Hill Honey", ["s05:haddad hill honey\" and"]),
("single_hop", "Which Melbourne suburb does Farid's family live in?", "Coburg", ["s05:coburg"]),
("single_hop", "Which finger did Nour hurt climbing, and what was the injury?", "the ring finger on her right hand; a pulley strain", ["s05:ring finger"]),
("single_hop", "What was used to make Farid's new knee ligament?", "a piece of his own hamstring", ["s06:hamstring"]),
("single_hop", "What is the name of the office dog at Arden Bridge Consulting?", "Pancake, a staffy", ["s09:pancake"]),
("single_hop", "What did Nour sell her mint green bike for?", "8,000 yen, to a university student", ["s09:8,000 yen"]),
("single_hop", "What is Dusty's middle name and whose idea was it?", "T Rex, Karim's idea", ["s10:middle name is t rex"]),
("single_hop", "What farewell gift did Nour's Tokyo office give her?", "a small wooden model of the Kanazawa library", ["s10:wooden model of the kanazawa library"]),
("single_hop", "What did Dusty destroy in Nour's room?", "her climbing shoes", ["s11:my climbing shoes"]),
("single_hop", "Who is Nour's boss at Kerr & Lo?", "Jenny Lo", ["s11:jenny lo"]),
("single_hop", "Where is the apartment Nour signed a lease on in Melbourne?", "a one-bedroom above a bakery on Smith Street in Collingwood", ["s12:smith street"]),
("single_hop", "What does Nour's cat Miso look like?", "a 2-year-old grey tabby with white paws", ["s13:grey tabby", "s13:her little white feet"]),
("single_hop", "What does Tom, the man Nour has been dating, do for work?", "he's a paramedic (she met him at the climbing gym)", ["s14:paramedic"]),
("single_hop", "What is the name of the bakery under Nour's Collingwood flat?", "Golden Crumb", ["s12:golden crumb"]),
("single_hop", "What colour is the lid of Farid's first beehive?", "blue", ["s01:blue lid"]),
("single_hop", "What colour were the climbing shoes Dusty chewed?", "purple", ["s11:purple climbing shoe"]),
# ---- multi_hop
("multi_hop", "What injuries did Farid and Nour each have in early 2024?", "Farid tore the ACL in his left knee playing soccer; Nour strained a pulley in her right ring finger climbing", ["s04:full acl tear", "s05:ring finger"]),
("multi_hop", "How did Nour's love life change over the course of 2024?", "she was with Ren in Tokyo, they broke up in April when he took a job in Osaka, and by October she was dating Tom, a paramedic", ["s02:ren and i went skiing", "s06:we broke up on sunday", "s14:paramedic"]),
("multi_hop", "Where has Nour lived during the conversation?", "in Tokyo, then in Farid's spare room in Melbourne, then her own one-bedroom on Smith Street in Collingwood", ["s01:from tokyo", "s08:spare room is yours", "s12:smith street"]),
("multi_hop", "How did Farid's honey yield change between his first harvest and the spring harvest?", "it went from 11 kg from one hive in March to 17 kg from two hives in November, after he caught a swarm", ["s05:11 kilos from one hive", "s13:now i have two hives", "s15:17 kilos"]),
("multi_hop", "Why did Farid leave the tunnel project for Arden Bridge Consulting?", "after 5 years he was tired of working underground, and the new office in Brunswick is 10 minutes from home instead of an hour; it is a bit less money but saner", ["s08:arden bridge consulting", "s08:10 minutes from home"]),
("multi_hop", "What animals do Farid and Nour each keep by the end of the conversation?", "Farid has Dusty the kelpie cross and two beehives; Nour has Miso the cat", ["s10:meet dusty", "s13:meet miso", "s13:now i have two hives"]),
("multi_hop", "How did the rule on Baba's argileh change after his bypass?", "it was banned and Mama hid the pipe at Aunty Rima's; in October the cardiologist allowed it once a month and the pipe came back", ["s03:mama hid the pipe", "s14:argileh once a month", "s14:back from aunty rima's"]),
("multi_hop", "Which building projects has Nour worked on?", "a wooden library in Kanazawa, a community centre in Footscray, and next a school library in Geelong", ["s04:library in kanazawa", "s11:footscray", "s15:geelong"]),
("multi_hop", "How did the estimate of when Farid can play soccer again change over time?", "first 9 to 12 months after surgery; in June the physio said not before December; in October the surgeon cleared him for January, with non-contact training from December", ["s04:9 to 12 months", "s09:no soccer until at least december", "s14:back to soccer in january"]),
("multi_hop", "Who has helped Farid with the bees?", "Sophie's dad did the heavy lifting at the first harvest, and Sam from the beekeeping club helped him catch the swarm", ["s05:sophie's dad", "s13:sam from the beekeeping club"]),
("multi_hop", "Where did Mama and Baba travel in late 2024, and whom did they see?", "to Lebanon (flying to Beirut): Baba saw his brother in Zahle, Mama visited her village in the Chouf, and they brought back olive oil from Aunty Maha's trees", ["s12:beirut on wednesday", "s12:zahle", "s14:aunty maha"]),
("multi_hop", "How long had Dusty been with the family when he chewed up Nour's climbing shoes?", "four weeks (picked up 12 July, shoes chewed 9 August 2024)", ["s10:picked him up yesterday", "s11:yesterday while i was at work"]),
("multi_hop", "How did Nour's climbing go over the year?", "she came 3rd in women's intermediate at her Tokyo gym's winter comp in January, strained a finger pulley in March, recovered by July, and placed 5th of 38 in open women's at the Crux Collective comp in October", ["s01:3rd in women's intermediate", "s05:ring finger", "s10:the finger is fine now", "s14:5th in open women's"]),
# ---- temporal
("temporal", "On what date did Farid set up his first beehive?", "2023-12-26", ["s01:since boxing day"]),
("temporal", "On what date did Baba see the cardiologist who recommended a bypass?", "2024-01-11", ["s01:three days ago"]),
("temporal", "On what date did Farid tear his ACL?", "2024-02-25", ["s04:at soccer last sunday"]),
("temporal", "On what date was Nour promoted to project architect?", "2024-02-26", ["s04:promoted on monday"]),
("temporal", "On what date did Farid harvest his first honey?", "2024-03-17", ["s05:pulled the frames on sunday"]),
("temporal", "On what date did Nour hurt her finger climbing?", "2024-03-06", ["s05:two weeks ago today"]),
("temporal", "On what date did Nour and Ren break up?", "2024-04-07", ["s06:we broke up on sunday"]),
("temporal", "On what date did Kerr & Lo offer Nour the job?", "2024-05-22", ["s08:offered me the job on wednesday"]),
("temporal", "On what date did Farid's family pick up Dusty?", "2024-07-12", ["s10:picked him up yesterday"]),
("temporal", "On what date did Nour adopt Miso?", "2024-09-22", ["s13:rspca last sunday"]),
("temporal", "On what date did Farid's bees swarm onto the neighbour's lemon tree?", "2024-09-24", ["s13:on tuesday the bees swarmed"]),
("temporal", "On what date was the Crux Collective comp where Nour placed 5th?", "2024-10-19", ["s14:climbing comp last saturday", "s14:5th in open women's"]),
("temporal", "On what date did Nour sign the lease on her Collingwood flat?", "2024-08-30", ["s12:i signed a lease", "s12:yesterday afternoon"]),
("temporal", "On what date did Mama and Baba get back from Lebanon?", "2024-10-20", ["s12:beirut on wednesday", "s14:mama and baba got back last sunday"]),
# ---- open_domain
("open_domain", "In which city is the hospital where Baba had his surgery?", "Sydney (Westmead is in western Sydney)", ["s02:westmead", "s02:land in sydney"]),
("open_domain", "Who is Fairouz, whom Nour expects Baba to quiz Tom about?", "a famous Lebanese singer", ["s15:what he thinks about fairouz"]),
("open_domain", "What game were Baba and his brother playing on the balcony in Zahle?", "backgammon (tawleh)", ["s14:tawleh"]),
("open_domain", "What were dogs like Dusty originally bred for?", "herding sheep; the kelpie is an Australian working sheepdog", ["s10:kelpie cross"]),
("open_domain", "What kind of dish is Nour making for Boxing Day from Mama's recipe?", "knafeh, a Levantine dessert of shredded pastry or semolina with cheese, soaked in sugar syrup", ["s15:knafeh"]),
("open_domain", "Which airline did Nour book to move to Melbourne, and which country's flag carrier is it?", "Qantas, Australia's flag carrier", ["s09:qantas"]),
# ---- unanswerable
("unanswerable", "What does Sophie do for work?", "not mentioned", []),
("unanswerable", "What is Tom's surname?", "not mentioned", []),
("unanswerable", "What is the name of Farid's over-35s soccer team?", "not mentioned", []),
("unanswerable", "How much did the replacement climbing shoes Farid bought Nour cost?", "not mentioned", []),
("unanswerable", "How much rent does Nour pay for her Collingwood flat?", "not mentioned", []),
("unanswerable", "What is the official name of the Kanazawa library Nour worked on?", "not mentioned", []),
("unanswerable", "Which two CBD firms did Nour apply to besides Kerr & Lo?", "not mentioned", []),
("unanswerable", "What is Baba's first name?", "not mentioned", []),
("unanswerable", "What song did Nour sing at her farewell karaoke?", "not mentioned", []),
("unanswerable", "How much does Farid charge per jar of honey?", "not mentioned", []),
],
}
