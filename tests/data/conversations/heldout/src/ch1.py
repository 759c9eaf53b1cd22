# ch1: Priya Raman (owner, vet surgery resident, Pittsburgh -> Columbus)
#      and Hannah Lindqvist (her old college roommate, potter in Duluth MN)
CONV = {
"id": "ch1",
"tz": "America/New_York",
"A": ("priya", "Priya"),
"B": ("hannah", "Hannah"),
"asked_at": "2023-01-08T12:00:00-05:00",
"sessions": [
# ---------------------------------------------------------------- s01
("2022-03-06T20:14", """
A: HANNAH. i am so sorry i went dark for like a month, residency ate me alive. how are you?? how's the frozen north
B: omg hi!! no worries i figured you were elbow deep in some golden retriever lol. the frozen north is still very frozen, we got another 9 inches on thursday
A: 9 inches in march is a crime. it was 60 here today and everyone in lawrenceville was out in shorts
B: rude. ok tell me everything, how's the surgery life
A: honestly good? i'm second year now so they let me lead on more stuff. did my first solo femoral head ostectomy last week on a little terrier and it went great
B: i understood maybe 40% of that but i'm very proud of you 🥹
A: lol basically i cut off the top of a dog's thigh bone and he's walking better than before
B: medicine is wild. how's marcus?
A: he's good! busy with his chem classes, his juniors are doing some egg drop thing he's way too invested in. oh and i signed up for the pittsburgh half marathon, it's may 1st
B: WAIT you?? the girl who took the bus to the gym freshman year??
A: i know i know. i'm following a 12 week plan and yesterday i did 8 miles without dying, which is a personal record for not dying
B: that's amazing pri. what got you into it
A: mostly stress tbh, running is the only time my brain shuts up about surgical plans. also i've been thinking about adopting a retired greyhound and they're supposedly great lazy running buddies for short stuff
B: a greyhound!!! do it. they're like giant noodle cats
A: there's a rescue called second stride greyhound rescue out near wheeling and they have a few dogs coming off the track in florida. i filled out the application on friday
B: ok i need updates on this constantly. meanwhile pickle knocked an entire 5 gallon bucket of celadon glaze off the shelf at work on tuesday, i brought her in because the heat was out at my place
A: noooo. is she ok? glaze isn't great if they lick it
B: she's fine, i washed her paws like three times and she hates me now. the art center director was less fine about it lol
A: lol poor pickle. are you still teaching the wheel classes at lakeview?
B: yep, tuesday and thursday nights plus the kids saturday class. but i've been seriously looking at storefronts for my own studio. there's one on superior street that i keep walking past like a creep
A: HANNAH your own studio has been the dream since sophomore year! go look at it!!
B: i'm scared of the rent lol. but yes. ok go sleep, you have to cut dogs open tomorrow
"""),
# ---------------------------------------------------------------- s02
("2022-03-19T10:47", """
A: guess who has a dog 🐕
B: NO WAY. show me immediately
A: look at him || IMG: a tall fawn greyhound wearing a blue fleece sweater, curled up on a grey couch with one ear flipped inside out
A: this is biscuit. we brought him home on thursday and he has already claimed the couch as his sovereign territory
B: his EAR. i'm deceased. how old is he?
A: he's 4, raced at a track in florida under the name "biscayne blur" which is honestly too cool for him. he ran like 60 races and then just kind of stopped trying lol
B: biscayne blur is an elite name. why biscuit then
A: the rescue people called him biscuit in the kennel cuz he'd steal biscuits out of the other dogs' bowls, and he answers to it so we kept it
B: a thief. i love him. how's he doing with the apartment
A: he's scared of stairs!! like genuinely, most track dogs have never seen stairs before. i live on the second floor so marcus has been coming over to carry him up and down, 70 pounds of noodle
B: oh my god the image of marcus carrying a greyhound up the stairs
A: it's very romantic. i'm working on it with him with treats, we got up 3 steps today
B: baby steps. literally
A: how was your weekend? didn't you have a curling thing
B: yes!! we won the club bonspiel last weekend!! jonas was skip and i was throwing third. we beat a team of retired dentists in the final which felt mean but also great
A: hahaha retired dentists are a formidable force. congrats!!! did you win anything
B: a very ugly trophy shaped like a curling stone and a $75 gift card to a brewery in canal park, so mostly we won beer
A: the best prize. any news on the superior street storefront?
B: ugh, i looked at it. it's gorgeous, big windows, old brick, but the landlord wants a 5 year lease and $2,900 a month. i can't do that on teacher money
A: that's a lot. something else will come up, i believe in you
B: thanks pri. give biscuit a kiss on his weird ear for me
"""),
# ---------------------------------------------------------------- s03
("2022-04-02T13:22", """
B: how's the stair situation
A: UPDATE: biscuit did the whole flight by himself yesterday!! marcus and i cheered so loud the downstairs neighbor knocked on the ceiling || IMG: a fawn greyhound standing proudly at the top of a narrow carpeted staircase, tail mid-wag
B: yesss biscuit!!! 🎉
A: he was so proud of himself. then he immediately did zoomies in the hallway and ran into the recycling bin
B: a true athlete. speaking of, how's the training
A: did 11 miles this morning along the north shore trail by the river. legs are jello. my knee's been a little cranky but my PT friend said it's probably just my IT band
B: 11 miles!!! you're a machine
A: and then i ate an entire box of mac and cheese so balance restored
B: lol. ok so i have big clay news
A: tell me
B: a potter up in two harbors is retiring after like 40 years and selling her kiln. it's a skutt, electric, big enough for a full class load, and she only wants $1,800 for it
A: is that a good price? i know nothing about kilns
B: it's a GREAT price, new ones that size are like 6 grand. i'm driving up to see it next saturday with jonas since he has a truck
A: ahh that's so exciting!! does this mean the studio is happening
B: it means i'm collecting the pieces and pretending i'm not terrified lol. if i have a kiln i basically have to open a studio, it's like reverse psychology on myself
A: that is the most hannah logic ever and i support it
B: also elin and i are talking about doing iceland in september!! she just finished her nursing boards so she wants a big trip
A: omg iceland. you have to see the glacier lagoon
B: that's at the top of the list. elin wants puffins, i want hot springs and a volcano
A: what's marcus up to today? we're going to the mattress factory later, he's never been
B: oh fun, that museum is so weird and great. tell biscuit i'm proud of his stair journey
"""),
# ---------------------------------------------------------------- s04
("2022-04-23T19:05", """
B: meet the newest member of the family || IMG: a large octagonal grey electric kiln on a wheeled stand in a cluttered garage, with a handwritten "SOLD to hannah!!" sticky note on the lid
B: she's mine
A: HANNAH!!! you bought it!!
B: jonas's brother anders came along with his trailer, it took three of us and a lot of swearing to get it off. it's living in our garage until i have a real space
A: it's beautiful. does it have a name
B: i'm calling it gus. the old potter said it's fired about 3,000 times and never once cracked a shelf
A: gus is a legend. ok how are you typing with a wrist brace tho, i saw your story
B: ugh yes. i slipped on the icy back steps on tuesday carrying groceries. sprained my left wrist. the urgent care doc said no throwing for at least two weeks
A: nooo. that's like your whole job
B: i know!! i'm teaching the classes by talking and pointing like a sad conductor. the students think it's hilarious
A: as your personal vet, ice it 20 minutes at a time and actually wear the brace at night, i know you
B: yes dr raman. how's the half training going, it's soon right?
A: yep, a week from sunday!! i'm in taper now which means less running and more anxiety. did my last long run of 12 last weekend
B: you're going to crush it. what's your goal time
A: i'd be happy with anything under 2:10. marcus is going to be at mile 9 with a sign, he won't tell me what it says
B: i'm scared for you lol. hows biscuit
A: perfect angel, except he ate the corner of my white coat yesterday. also my mom called, she's already planning for december
B: december what?
A: my paati (grandma) in chennai turns 90 in december and there's going to be this huge party, like every cousin flying in. my mom wants me to come for two weeks
B: 90!! that's amazing. are you gonna go?
A: i think i have to lol, i'd never hear the end of it. plus i haven't been back since 2017
"""),
# ---------------------------------------------------------------- s05
("2022-05-08T16:30", """
A: look what i got 🏅 || IMG: a finisher medal shaped like a yellow bridge hanging on a doorknob, next to a race bib reading 11482
A: i did it!!! last sunday still feels like a dream. sorry this is so late, i've been sleeping for a week
B: PRIYA!!! i knew it! what was your time??
A: 2:04:37!!! way under my goal. i cried at the finish line on the boulevard of the allies like a baby
B: that's incredible 😭😭 how do you feel
A: my right knee is still kinda angry and i couldn't go down stairs for two days. biscuit and i were equally bad at stairs
B: full circle. what did marcus's sign say
A: "you're running better than the pirates" which... is true but a low bar
B: lmaoo. ok that's amazing
A: also i have other news. i got an email out of the blue from the ohio state vet med center, they have a staff surgeon position opening up and one of my old attendings recommended me
B: whoa. in columbus??
A: yeah. the interview is on the 19th. i don't even know if i want to leave pittsburgh but it would be a huge step up
B: that's a big deal. what does marcus think
A: i haven't really told him how serious it is yet. he's kind of rooted here, his whole family's in squirrel hill
B: hmm. ok well go to the interview and see. you don't have to decide anything yet
A: yeah. how's the wrist??
B: brace is off as of tuesday! i threw my first wobbly cylinder yesterday and almost cried too. we're a pair
A: yay!! careful with it still
B: and i have news too, elin and i officially booked iceland! september 3 to 13, flying icelandair out of minneapolis
A: AHH. ok you're doing the ring road?
B: south coast only, we rented a little camper van. elin has a spreadsheet with 46 tabs
"""),
# ---------------------------------------------------------------- s06
("2022-05-28T11:40", """
B: sooooo how did the interview go, you've been quiet
A: ok so. it went really well. like too well. they offered me the job on wednesday
B: OMG. congrats!!! ...right? is it a congrats
A: it's a congrats i think. staff surgeon, starting august 15th, way better pay, and i'd get to do the orthopedic stuff i actually love
B: that sounds like a yes to me
A: it's a yes for me. it's a no for marcus. he teaches at allderdice and he's up for department head next year, he doesn't want to leave
B: oh pri. have you guys talked about long distance?
A: sort of. it's three hours, it's not the end of the world. but he went really quiet when i brought it up
B: that's hard. i'm sorry
A: yeah. i have to give them an answer by june 10. anyway distract me, any studio news
B: actually yes! there's a space in lincoln park that used to be a bike repair shop. it's smaller than the superior street one but it has a garage door and a sink already and it's $1,650 a month
A: that's so much better!! and lincoln park is like the cool up and coming area right?
B: yeah there's a brewery and a sandwich place and a climbing gym on the same block. i'm meeting the landlord on wednesday, he's an old guy who used to race bikes
A: eek i'm excited. also how's pickle
B: ugh pickle had a whole saga. she ate a hair tie last week and was throwing up so we went to the emergency vet and it was $600 😩
A: oh no. did they have to scope her or did it pass?
B: it passed on its own thank god, they just did x-rays and fluids. she is banned from all hair ties forever
A: cats and string stuff is genuinely one of the scariest things we see, keep all that stuff in a drawer
B: yes ma'am. she's fine now, currently sitting on my keyboard
A: give her a little bap from me. ok i'm gonna go take biscuit to frick park before it rains
"""),
# ---------------------------------------------------------------- s07
("2022-06-18T21:12", """
A: hey. you around?
B: always. what's up
A: i took the job. and marcus and i broke up last weekend
B: oh priya. i'm so sorry. are you ok?
A: kind of? we talked for like four hours saturday night. he said he can't do long distance, he's seen it ruin his brother's marriage and he's not going to try it
B: that's so hard. three years is a long time
A: three and a half. and it wasn't like a fight, it was just sad. we both cried. he's still going to come walk biscuit on the days i'm on call until i move
B: that's kind of sweet actually. he's a good guy, it just doesn't fit
A: yeah. that's exactly it. my mom keeps calling to ask if i'm eating, i am eating mostly ice cream
B: valid. ice cream is a food group during breakups
A: ok enough about me. tell me something happy
B: ok!! i signed the lease!!! the lincoln park space is officially mine as of july 1
A: WHAT. HANNAH. that's so huge
B: three year lease, the landlord gave me the first month free because i'm gonna paint it myself. and i have a name: cobble clay studio
A: cobble clay!! because of the cobblestone beach?
B: yes!! the one on park point where we got sunburned that summer you visited in 2019
A: i still have the weird heart shaped rock from that beach on my desk
B: stop that's so cute. i'm hoping to open in the fall, maybe october
A: you should do a big opening party. i will fly in. or drive. columbus to duluth is like 12 hours probably
B: you would drive 12 hours for me? i'm tearing up
A: i'd drive 12 hours for a free mug honestly. oh and also my car is making a horrible noise, the check engine light has been on for a week
B: please get that checked before you move, that honda fit is older than pickle
"""),
# ---------------------------------------------------------------- s08
("2022-07-09T17:55", """
A: well. the honda fit is dead
B: nooo. rest in peace little fit. what happened
A: transmission died on i-376 on wednesday during rush hour. i had to get towed. the mechanic said it'd cost more than the car is worth to fix
B: oh no, was biscuit with you??
A: thank god no, he was home. but i had to get a car fast so i bought a used subaru yesterday
A: meet the new ride || IMG: a dark green 2019 subaru crosstrek parked in front of a brick rowhouse, with a greyhound's head poking out of the rear window
B: ooh it's so green!! and biscuit approves
A: it's a 2019 crosstrek, 41k miles. biscuit fits in the back if he folds himself up like a lawn chair
B: very practical for a moving lady. how's the columbus apartment hunt
A: i found one!! a little half a duplex in clintonville with a fenced backyard. biscuit can finally run in a yard instead of just the park
B: yay! clintonville, is that the hippie neighborhood? elin had a friend at osu who lived there
A: yeah it's kinda granola, lots of co-ops and a big trail along the river. it's like 10 minutes from the hospital
B: perfect. i'm in full studio mode, painting the walls this week
A: what color??
B: "lake fog", it's like a pale grey green. jonas is building shelves along the back wall out of old barn wood from his uncle's farm
B: progress pic || IMG: a small empty shop with a roll-up garage door, half the walls painted pale grey-green, a ladder and paint trays on a concrete floor
A: HANNAH it already looks like a studio. i can picture it
B: the garage door is the best part, in summer i can open it and people can watch us throw from the sidewalk
A: that is going to be so cute. when do you move gus in
B: next month once the electrician puts in the 240 line for him. he needs his own special circuit like a diva
A: gus deserves it
"""),
# ---------------------------------------------------------------- s09
("2022-07-30T12:08", """
A: i'm surrounded by boxes and i hate everything
B: moving is the worst. when's the truck?
A: august 6th. my dad is driving out from edison to help me drive it, he's very excited to be useful
B: aww dad. how are you feeling about leaving
A: sad and excited. the residency crew threw me a goodbye party last night at a bar in the strip district and they made me a cake shaped like a bone || IMG: a bone-shaped white sheet cake on a bar table with a metal plate and screws drawn in blue icing and "good luck dr raman" written across it
B: a bone cake!! vets are so on brand
A: it was in fact a femur. very anatomically accurate. someone drew a plate and screws on it in icing
B: lolll. did marcus come?
A: he did, he stayed for an hour. it was ok. he gave biscuit a new squeaky hedgehog
B: that's sweet. i'm glad it's not awful between you two
A: me too. ok studio update please i need joy
B: ok so the wheels arrived!! i bought four shimpo wheels, two new ones and two used from a school that was closing their art program
A: that's so sad about the school but yay for you
B: i know, i felt a little like a vulture. also pickle has been coming to the studio with me and she sleeps in a bucket of clean rags like a queen
A: a studio cat is essential for the vibes
B: exactly. and i'm throwing you something for your new house, it's a secret but it's mugs
A: you literally just told me it's mugs
B: i panicked. pretend you don't know. they'll be ready in a few weeks, they need two firings
A: lol i promise to act shocked. i'll send you the new address once i'm there
B: drive safe with your dad!! text me when you're in columbus
"""),
# ---------------------------------------------------------------- s10
("2022-08-20T19:30", """
A: hi from columbus!! sorry i'm only now surfacing, it's been two weeks of chaos
B: PRIYA!! how's the new place? how's the job??
A: the duplex is great, biscuit is OBSESSED with the yard. he does laps around the tomato plants the last people left
B: living his best life. and the hospital?
A: so much. it's huge, there are like 30 surgeons. on tuesday i did my first TPLO there on a black lab named moose and my attending said it was the cleanest she'd seen from a new hire
B: i don't know what that is but MOOSE
A: it's a knee surgery for a torn ligament, basically the dog version of an acl. moose is doing great
B: yay moose. have you met anyone
A: my neighbor on the other side of the duplex is this retired librarian named dolores and she has a corgi named waffles. waffles and biscuit are now best friends through the fence
B: waffles and biscuit sounds like a brunch menu
A: right?? dolores brings me zucchini bread. i think i've been adopted
B: did the package come yet?? 👀
A: YES it came yesterday and i acted very shocked, for the record
A: exhibit a || IMG: four speckled blue-grey mugs lined up on a kitchen counter, each stamped near the handle with a tiny running greyhound
A: hannah they have little greyhounds on them. i'm going to cry. they're perfect
B: i made a little stamp out of clay, it took me like five tries to get the legs right
A: biscuit has never been so honored. i'm drinking chai out of one right now
B: that makes me so happy. ok i'm leaving for iceland in two weeks and i have done zero packing
A: elin has probably packed for you based on the 46 tabs
B: she sent me a packing list with a section titled "hannah WILL forget these". rude but accurate
"""),
# ---------------------------------------------------------------- s11
("2022-09-17T15:02", """
B: i'm back!!! iceland was UNREAL
A: welcome home!! i've been waiting for the photos
B: look at this place || IMG: small icebergs floating in a milky blue lagoon with a glacier tongue in the background under a cloudy sky, a woman in a red raincoat at the water's edge
B: that's elin at jökulsárlón, the glacier lagoon. we saw seals swimming between the icebergs
A: that's insane. it looks fake
B: it literally looks like a screensaver. we got home tuesday night and i've been jet lagged since
A: what was your favorite part
B: honestly the black sand beach at reynisfjara, the waves were huge and there are these basalt columns like a giant's pipe organ. elin found puffins too so she's happy
A: and the camper van?
B: the van was tiny and smelled like fish but i kind of miss it. elin got food poisoning from a gas station hot dog on day 6 though, she lost a whole day
A: nooo not the gas station hot dog. iceland is supposed to be famous for those
B: she says she's never eating a hot dog again. anyway how are YOU, how's columbus
A: good! i joined a running club, they do tuesday night runs from a brewery in clintonville. and there's a guy.
B: A GUY. tell me everything
A: his name is theo, he plays cello in the columbus symphony. we ran together at the back of the pack last tuesday cuz we were both too slow for the fast group, and he talked about brahms for 3 miles
B: a cellist who runs slow and talks about brahms. that's a very specific type and it's your type
A: lol shut up. we're getting dinner next friday
B: eeee. ok what else
A: biscuit ripped a toenail at the dog park last weekend, there was so much blood, i wrapped it myself like a professional. he's fine, just dramatic
B: poor biscuit. also i have to tell you, i got the final inspection on the studio!! i'm officially allowed to open
A: HANNAH!! that's so exciting. oh and i booked my chennai flights, leaving december 18 and back january 2
"""),
# ---------------------------------------------------------------- s12
("2022-10-08T20:44", """
B: one week until cobble clay opens and i think i'm going to throw up
A: you're going to be amazing! next saturday right?
B: yes. grand opening 10am to 4pm, there's going to be a raku demo in the parking lot and free cider || IMG: a hand-lettered flyer reading "cobble clay studio grand opening - saturday 10 to 4 - raku demo + free cider" with a drawing of a mug, taped to a glass door
A: raku!! that's where you pull the pots out of the fire hot right? i remember you did that in college and singed your eyebrows
B: ONE time. i still have a little gap lol. i've got 14 people signed up for the first six week wheel class already
A: that's amazing for a brand new studio
B: i think half of them are jonas's curling friends but i'll take it. i'm so sorry you can't come, i know it's a long way
A: i know :( i'm on call that weekend, i tried to switch with two people. next time i swear
B: don't even, you have a real job. how was the date with theo??
A: the date went really well. and then we went out again. and then again. it's been three weeks now
B: PRIYA
A: i know. he took me to see the symphony do mahler last saturday and i actually watched him the whole time instead of the conductor
B: that's the most romantic thing i've ever heard. does he like biscuit
A: he hasn't met biscuit yet! i'm saving that, it's a big step. biscuit is a very harsh critic
B: lol biscuit who loves everyone including a retired librarian
A: fair. also i signed up for a full marathon. the flying pig in cincinnati, next may
B: a FULL marathon?? who are you
A: i don't know anymore. theo says he'll run the half. the running club has a training group starting in january
B: ok i'm proud but also concerned for your knee
A: the knee is better! i've been doing the PT exercises. mostly
B: "mostly". ok go get rest, you have to save puppies
"""),
# ---------------------------------------------------------------- s13
("2022-10-29T10:18", """
B: uh so. look at my hand || IMG: a woman's hand held up against pine trees, wearing a thin gold band with a small green tourmaline stone
B: so. something happened.
A: OH MY GOD. HANNAH
B: jonas proposed!!! last sunday on the hike up to split rock lighthouse
A: AAAAH i'm screaming. tell me literally everything
B: so we hiked up there like we always do in the fall and he was acting so weird, like he kept checking his pocket. and then at the overlook he got down on one knee and his knee landed in a puddle lol
A: that's so jonas. what did he say
B: i honestly don't remember, i was crying too hard. something about how i'm the only person he'd want to be stuck in a snowstorm with
A: 😭😭😭 and the ring! green!
B: it's a tourmaline, he knows i hate diamonds. it's from a jeweler in grand marais
A: it's so you. i'm so happy for you. when's the wedding??
B: we're thinking next august, up north somewhere. we're looking at venues already
A: amazing. and wait how did the opening go?? i can't believe i have to ask you about two huge things at once
B: the opening was SO good. like 200 people came through, we sold out of every mug on the shelf by 1pm, and the raku demo only set one small bush on fire
A: only one bush!! growth
B: lol the fire department didn't even have to come. the wheel class started on tuesday and everyone's super sweet
A: i'm so proud of you. you did the thing you said you'd do when we were 19
B: stop i'm going to cry again. ok how's theo
A: he met biscuit!! on wednesday. biscuit sniffed him for a long time and then leaned his whole body on him, which is the biggest honor a greyhound can give
B: the lean!! theo's in
A: he's in. we're dressing biscuit as a hot dog for halloween, theo bought the costume
B: i need photos of that on monday
"""),
# ---------------------------------------------------------------- s14
("2022-11-26T14:35", """
A: happy belated thanksgiving!! how was yours?
B: it was nice, we did it at the studio actually!! we pushed the wedging tables together and 16 people came
A: that's adorable, a studio friendsgiving
B: jonas deep fried a turkey in the parking lot which is why i was nervous the whole time. how was yours, didn't you go to dayton?
A: yes!! we drove to theo's parents' house in dayton on thursday. my first time meeting them
B: ahhh how was it
A: they're so lovely. his mom is a retired nurse and his dad restores old clocks, their house ticks constantly. and his mom made a pumpkin pie with cardamom in it cuz theo told her that's how my mom makes it
B: stop that is so thoughtful
A: i almost cried into the pie. biscuit came too and slept on their rug the entire time || IMG: a pumpkin pie with one slice missing on a floral tablecloth, an old wooden mantel clock in the background
B: i'm so happy for you. ok i have two things to ask you
A: uh oh
B: one: we booked the venue! a lodge up in lutsen right on the lake, august 19th next year
A: yesss that's perfect. i'll put it in my calendar right now
B: and two... would you be my maid of honor? 🥺
A: HANNAH. yes. obviously yes. i'm honored. i'm going to plan the most unhinged bachelorette
B: please nothing involving a boat, you know how i get on boats
A: noted, no boats. what else is new up there
B: ok also, jonas brought home a kitten. without asking. he found her behind the brewery next to the studio
A: oh no. oh yes. what's her name
B: rutabaga. she's orange and has a crooked tail. pickle is furious, she's been hissing at her for a week
A: give it time, keep them separated with a baby gate at first and swap blankets so they get used to each other's smell
B: thank you dr raman. they're currently staring at each other through the gate like two cowboys || IMG: an orange kitten with a crooked tail and a grey tabby cat staring at each other through a white baby gate in a hallway
"""),
# ---------------------------------------------------------------- s15
("2022-12-30T09:40", """
A: hi from chennai!! it's 8pm here and 30 degrees celsius, i'm melting
B: PRIYA. how's india? how was the party??
A: the party was two days ago and it was huge, like 250 people in a wedding hall. paati danced!! at 90!!
A: the birthday girl || IMG: a tiny elderly woman in a maroon silk sari with jasmine flowers in her hair cutting a large white cake decorated with the number 90, surrounded by smiling relatives
B: look at her!! she's radiant. that's the most joyful photo i've ever seen
A: she asked me about three times when i'm getting married. i told her about theo and now the whole family knows he plays the "big violin"
B: lmao the big violin. has she approved?
A: she wants to meet him on video call tomorrow. i'm scared for him
B: hahaha. who's watching biscuit?
A: theo! he's staying at my place with biscuit and he sends me photos every morning. dolores next door brings them both zucchini bread
B: that's so wholesome. when are you back?
A: my flight is january 2, through doha. i'm going to eat my weight in dosas before then
B: bring me back something spicy
A: already bought you a bag of the ghost pepper chips my cousin swears by. how's your christmas? how's cobble clay?
B: christmas was cozy, my mom came up from minneapolis. and the holiday market at the studio was wild, we made $4,300 in one weekend
A: WHAT. that's amazing hannah!!
B: i know! enough to buy a second kiln next year probably. gus is getting a little brother
A: gus jr. and how are pickle and rutabaga?
B: they're friends now!! i caught them sleeping in the same basket on tuesday. you were right about the blankets
A: told you. ok and the wedding planning?
B: slowly. we picked a photographer. and i need to talk to you about the bachelorette when you're back, elin wants to help
A: elin and her spreadsheets on the bachelorette? we're unstoppable. happy new year hannah ❤️
"""),
],
"questions": [
# ---- single_hop
("single_hop", "What is the name of the greyhound Priya adopted?", "Biscuit", ["s02:this is biscuit"]),
("single_hop", "What name did Priya's greyhound race under in Florida?", "Biscayne Blur", ["s02:raced at a track in florida"]),
("single_hop", "Why did the rescue staff start calling Priya's dog Biscuit?", "because he stole biscuits out of the other dogs' bowls in the kennel", ["s02:steal biscuits"]),
("single_hop", "What was Biscuit wearing in the first photo Priya sent of him?", "a blue fleece sweater", ["s02:blue fleece sweater"]),
("single_hop", "What price was the retiring potter in Two Harbors asking for her kiln?", "$1,800", ["s03:$1,800"]),
("single_hop", "What did Hannah name the kiln she bought?", "Gus", ["s04:i'm calling it gus"]),
("single_hop", "What was Priya's finishing time at the Pittsburgh half marathon?", "2:04:37", ["s05:2:04:37"]),
("single_hop", "What number was on Priya's half marathon race bib?", "11482", ["s05:race bib reading 11482"]),
("single_hop", "What did Marcus's sign at the half marathon say?", "\"you're running better than the pirates\"", ["s05:running better than the pirates"]),
("single_hop", "What position did Hannah throw on her curling team when they won the club bonspiel?", "third (Jonas was skip)", ["s02:throwing third"]),
("single_hop", "What is Hannah's pottery studio called?", "Cobble Clay Studio", ["s07:i have a name: cobble clay studio"]),
("single_hop", "What paint color did Hannah use on the studio walls?", "\"lake fog\", a pale grey-green", ["s08:lake fog"]),
("single_hop", "What car did Priya buy after her Honda Fit died?", "a used dark green 2019 Subaru Crosstrek (41k miles)", ["s08:dark green 2019 subaru", "s08:2019 crosstrek, 41k"]),
("single_hop", "What is the name of the corgi that belongs to Priya's neighbor in Columbus?", "Waffles", ["s10:corgi named waffles"]),
("single_hop", "What design did Hannah put on the housewarming mugs she made for Priya?", "a tiny running greyhound stamped near each handle", ["s10:four speckled", "s10:i made a little stamp"]),
("single_hop", "What instrument does Theo play, and for whom?", "the cello, in the Columbus Symphony", ["s11:plays cello"]),
("single_hop", "What was Hannah's favorite part of her Iceland trip?", "the black sand beach at Reynisfjara", ["s11:reynisfjara"]),
("single_hop", "What color raincoat was Elin wearing at the glacier lagoon?", "red", ["s11:red raincoat"]),
("single_hop", "What stone is set in Hannah's engagement ring?", "a small green tourmaline (on a thin gold band)", ["s13:small green tourmaline", "s13:it's a tourmaline"]),
("single_hop", "What does Theo's father do in his spare time?", "he restores old clocks", ["s14:restores old clocks"]),
("single_hop", "What is the name of the kitten Jonas brought home?", "Rutabaga", ["s14:rutabaga. she's orange"]),
("single_hop", "How much did Cobble Clay Studio take in at its holiday market?", "$4,300 in one weekend", ["s15:$4,300"]),
("single_hop", "What was written on the cake at Priya's goodbye party?", "\"good luck dr raman\" (on a bone-shaped cake with a plate and screws drawn in icing)", ["s09:good luck dr raman"]),
("multi_hop", "What does Hannah's older cat Pickle look like, judging from the photo of her meeting Rutabaga?", "a grey tabby (the orange kitten in the photo is Rutabaga)", ["s14:grey tabby cat", "s14:rutabaga. she's orange"]),
# ---- multi_hop
("multi_hop", "What cats does Hannah have by the end of 2022?", "two: Pickle and the orange kitten Rutabaga", ["s01:pickle knocked", "s14:rutabaga. she's orange"]),
("multi_hop", "Why did Priya and Marcus break up?", "Priya accepted a staff surgeon job at Ohio State in Columbus and Marcus would not do a long-distance relationship", ["s06:offered me the job", "s07:i took the job", "s07:can't do long distance"]),
("multi_hop", "Which races has Priya run or signed up for over the course of the conversation?", "she ran the Pittsburgh half marathon and signed up for the Flying Pig full marathon in Cincinnati", ["s01:pittsburgh half marathon", "s05:2:04:37", "s12:flying pig"]),
("multi_hop", "Which members of Jonas's family helped Hannah get her studio set up?", "his brother Anders brought a trailer to haul the kiln, and the shelves were built from barn wood from his uncle's farm", ["s04:anders", "s08:uncle's farm"]),
("multi_hop", "Who has looked after Biscuit when Priya couldn't?", "Marcus walked him on her on-call days before the move, and Theo stayed with him while she was in Chennai", ["s07:walk biscuit", "s15:he's staying at my place"]),
("multi_hop", "How did the rent on the Lincoln Park space compare with the Superior Street storefront Hannah first looked at?", "Superior Street wanted $2,900 a month on a 5-year lease; the Lincoln Park space is $1,650 a month on a 3-year lease", ["s02:$2,900", "s06:$1,650", "s07:three year lease"]),
("multi_hop", "What injuries did Priya and Hannah each deal with in spring 2022?", "Priya had a cranky (right) knee, probably IT band, during half marathon training; Hannah sprained her left wrist slipping on icy steps", ["s03:my knee's been a little cranky", "s05:right knee", "s04:sprained my left wrist"]),
("multi_hop", "What did Priya and Theo do together before he met Biscuit?", "they ran together at the running club, went to dinner and went out several times, and she saw him play Mahler with the symphony", ["s11:we ran together", "s12:mahler"]),
("multi_hop", "Which two big events in Hannah's life happened about a week apart in October 2022?", "the grand opening of Cobble Clay Studio and Jonas's proposal", ["s12:one week until cobble clay opens", "s13:jonas proposed"]),
("multi_hop", "Which neighborhoods has Priya lived in during the conversation?", "Lawrenceville in Pittsburgh, then Clintonville in Columbus", ["s01:lawrenceville", "s08:clintonville with a fenced"]),
("multi_hop", "What presents has Biscuit received from the men in Priya's life?", "a squeaky hedgehog from Marcus and a hot dog Halloween costume from Theo", ["s09:squeaky hedgehog", "s13:theo bought the costume"]),
("multi_hop", "About how long after bringing Biscuit home did Priya move to Columbus?", "about four and a half months (from 17 March to 6 August 2022)", ["s02:brought him home on thursday", "s09:august 6th"]),
("multi_hop", "What major equipment did Hannah acquire for her studio?", "a used Skutt electric kiln she named Gus (about $1,800) and four Shimpo wheels, two new and two used", ["s03:$1,800", "s04:i'm calling it gus", "s09:shimpo wheels"]),
# ---- temporal
("temporal", "On what date did Priya bring Biscuit home?", "2022-03-17", ["s02:brought him home on thursday"]),
("temporal", "On what date did Hannah sprain her wrist?", "2022-04-19", ["s04:on tuesday carrying groceries"]),
("temporal", "On what date did Priya run the Pittsburgh half marathon?", "2022-05-01", ["s05:last sunday", "s01:may 1st"]),
("temporal", "On what date did Ohio State offer Priya the job?", "2022-05-25", ["s06:offered me the job on wednesday"]),
("temporal", "On what night did Priya and Marcus have the long talk in which they broke up?", "2022-06-11", ["s07:four hours saturday night"]),
("temporal", "On what date did Priya buy her Subaru?", "2022-07-08", ["s08:bought a used subaru yesterday"]),
("temporal", "When was Priya's goodbye party with the residency crew?", "2022-07-29", ["s09:goodbye party last night"]),
("temporal", "On what date did Hannah get home from Iceland?", "2022-09-13", ["s11:got home tuesday night"]),
("temporal", "On what date did Cobble Clay Studio hold its grand opening?", "2022-10-15", ["s12:one week until cobble clay opens", "s12:next saturday right"]),
("temporal", "On what date did Jonas propose to Hannah?", "2022-10-23", ["s13:last sunday on the hike"]),
("temporal", "On what date did Theo first meet Biscuit?", "2022-10-26", ["s13:he met biscuit"]),
("temporal", "On what date was the party for Priya's grandmother's 90th birthday?", "2022-12-28", ["s15:the party was two days ago"]),
("temporal", "On what date did Priya first meet Theo's parents?", "2022-11-24", ["s14:dayton on thursday"]),
("temporal", "On what date did Hannah catch Pickle and Rutabaga sleeping in the same basket?", "2022-12-27", ["s15:same basket on tuesday"]),
# ---- open_domain
("open_domain", "How far will Priya have to run at the race she signed up for in Cincinnati?", "a full marathon, 26.2 miles (about 42.2 km)", ["s12:flying pig"]),
("open_domain", "In which US state is Hannah's wedding venue, and which lake is it on?", "Minnesota; Lake Superior (Lutsen is on the North Shore)", ["s14:lodge up in lutsen"]),
("open_domain", "Would a party cruise be a good idea for Hannah's bachelorette?", "no, she asked Priya for nothing involving a boat", ["s14:nothing involving a boat"]),
("open_domain", "Priya is flying home from Chennai through Doha; which airline is she most likely flying?", "probably Qatar Airways, since Doha is its hub", ["s15:through doha"]),
("open_domain", "Roughly what was the temperature in Fahrenheit in Chennai when Priya messaged from there?", "about 86°F (30°C)", ["s15:30 degrees celsius"]),
("open_domain", "Which ligament did Moose the lab most likely tear, given the surgery Priya did on him?", "the cranial cruciate ligament (CCL), the dog equivalent of the human ACL; a TPLO is the standard repair for it", ["s10:my first tplo", "s10:basically the dog version of an acl"]),
# ---- unanswerable
("unanswerable", "What is Theo's last name?", "not mentioned", []),
("unanswerable", "What finishing time did Priya run at the Flying Pig marathon?", "not mentioned", []),
("unanswerable", "What brand of second kiln is Hannah planning to buy?", "not mentioned", []),
("unanswerable", "What was the name of the terrier Priya did her first solo femoral head ostectomy on?", "not mentioned", []),
("unanswerable", "How much did Priya pay for her Subaru?", "not mentioned", []),
("unanswerable", "What is the name of the photographer Hannah and Jonas hired for the wedding?", "not mentioned", []),
("unanswerable", "Which hospital does Hannah's sister Elin work at as a nurse?", "not mentioned", []),
("unanswerable", "What is the name of Marcus's brother?", "not mentioned", []),
("unanswerable", "What did Hannah's mom give her for Christmas?", "not mentioned", []),
("unanswerable", "Which company did Hannah and Elin rent their Iceland camper van from?", "not mentioned", []),
],
}
