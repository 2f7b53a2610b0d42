"""English: the words detection and the index read. English's signal grammar lives in the signal
modules themselves (``signals``, ``dates``, ``smalltalk``, ``names``, ``caim.memory.capture``).

- ``STOPWORDS``: the words the index leaves out.
- ``GREETINGS``, ``EXCLAMATIONS``, ``SIGN_OFFS``: small talk (``caim.memory.text.smalltalk``).
- ``SLOTS``: single-value facts the speaker states of themselves (``caim.memory.text.slots``).
- ``ENTITIES``: the work, places, people and pets of the speaker's life (``caim.memory.text.entities``).
- ``LANGUAGE``: English for ``caim.memory.text.lang``: its votes are its stopwords, its small talk,
  and the English words that are also function words of another language ("die", "war", "also"),
  so that an English text holding them is not taken for that language.
"""

from __future__ import annotations

from caim.memory.text.tables import EntityWords, Language, PolarityWords, SlotWords, phrases, spelled, vote_words, words

STOPWORDS = frozenset(
    [
        "a",
        "about",
        "above",
        "after",
        "again",
        "against",
        "all",
        "am",
        "an",
        "and",
        "any",
        "are",
        "aren't",
        "as",
        "at",
        "be",
        "because",
        "been",
        "before",
        "being",
        "below",
        "between",
        "both",
        "but",
        "by",
        "can",
        "could",
        "did",
        "didn't",
        "do",
        "does",
        "doesn't",
        "doing",
        "don't",
        "down",
        "during",
        "each",
        "few",
        "for",
        "from",
        "further",
        "had",
        "has",
        "have",
        "having",
        "he",
        "her",
        "here",
        "hers",
        "herself",
        "him",
        "himself",
        "his",
        "how",
        "i",
        "if",
        "in",
        "into",
        "is",
        "isn't",
        "it",
        "it's",
        "its",
        "itself",
        "just",
        "let",
        "me",
        "more",
        "most",
        "my",
        "myself",
        "no",
        "nor",
        "not",
        "now",
        "of",
        "off",
        "on",
        "once",
        "only",
        "or",
        "other",
        "our",
        "ours",
        "ourselves",
        "out",
        "over",
        "own",
        "same",
        "she",
        "should",
        "so",
        "some",
        "such",
        "than",
        "that",
        "the",
        "their",
        "theirs",
        "them",
        "themselves",
        "then",
        "there",
        "these",
        "they",
        "this",
        "those",
        "through",
        "to",
        "too",
        "under",
        "until",
        "up",
        "very",
        "was",
        "wasn't",
        "we",
        "were",
        "what",
        "when",
        "where",
        "which",
        "while",
        "who",
        "whom",
        "why",
        "will",
        "with",
        "would",
        "you",
        "your",
        "yours",
        "yourself",
        "yourselves",
        "s",
        "t",
        "don",
        "ll",
        "m",
        "re",
        "ve",
        "d",
    ]
)

#: Greetings and thanks.
GREETINGS = ("hi", "hello", "hey", "thanks", "thank you")
#: Praise and exclamations.
EXCLAMATIONS = ("wow", "awesome", "great", "glad", "cool", "amazing", "nice", "yeah", "yay", "totally")
#: Assent and farewells: small talk as a whole message only.
SIGN_OFFS = ("ok", "okay", "bye", "goodbye", "good morning", "good night", "good evening")

#: Words of another language's tables that English has too (German "die", "war"; French "son";
#: Spanish "come"): they vote for English too, and count as small talk only as English reads them.
SHARED = words(
    """also toll art bald bin den die fast gift hat hell kind man mist rat rock so war was will wo top super genial
    prima klasse bravo son sur pour est plus on non ton ou sale tout car come con sin pan era ante este
    para solo mi ten once red fin ciao chat coin pain main dire vale mar ha he ai cuisine plane ya um ma hay
    mag ins soy al lo er yo tag im da weekend week content moment oh courage chance end excellent jo eh hm ah
    comment rate six date aug jun parfait ay oft gut encore january february march april may june july august
    september october november december monday tuesday wednesday thursday friday saturday sunday"""
)

#: Small talk of another language whose stem an English word shares (Spanish "perfecto" and English
#: "perfect", French "salut" and "salute", German "danke" and "dank"): ``SMALL_TALK_STEMS`` of
#: ``caim.memory.text.smalltalk`` leaves them out, so an English claim keeps those words.
STEM_COGNATES = words("perfecto fantástico salut danke")

#: Preference cues (``caim.memory.text.polarity``).
_SO = ("", "so", "really", "very", "super", "truly", "sooo", "so so", "absolutely", "honestly", "genuinely", "actually")
_ME = ("me", "me so", "me really")
POLARITY = PolarityWords(
    likes=phrases(
        """love; loves; loved; loving; luv; enjoy; enjoys; enjoyed; enjoying; adore; adores; adored; prefer; prefers;
        fan of; big fan; huge fan; massive fan; big fan of; huge fan of; a fan; been a fan; lifelong fan;
        die-hard fan; diehard fan; fond of; crazy about; obsessed with; obsessed; passionate about;
        can't get enough; i'm into; im into; i am into; we're into; he's into; she's into; really into; so into;
        super into; totally into; big into; keen on; mad about; interested in; hooked on; addicted to; in love with;
        fell in love; fallen in love; a sucker for; can't put it down; couldn't put it down; can't stop listening;
        can't stop playing; can't stop watching; on repeat; on loop; still thinking about; still dream about;
        i'm loving; i am loving; been loving; never get tired of; never get bored of; never gets old;
        look forward to mondays; wouldn't drive anything else; wouldn't trade it; regret nothing; passion for;
        a passion for; a soft spot for; soft spot for; a thing for; feel so alive; feel alive; feel at peace;
        feel so free; feel free when; feel at home; feel most alive; feel most at peace; feel most like myself;
        never get tired; i'm big on; im big on; really big on; a big believer in; swear by; can't live without;
        couldn't live without; can't imagine life without; all about; always up for; always down for;
        love love love; i'm interested; i am interested; very interested; quite interested; really interested;
        most interested; so interested; getting into; got into; gotten into; i'm hooked; im hooked;
        i'm passionate; i am passionate; i'm all about; big part of my life; part of who i am;
        a big part of who i am; never miss; can't wait to go back; my kind of thing; right up my alley;
        mostly into; mainly into; kinda into; pretty into; drawn to; always been drawn to;
        i live for; we live for; i'm digging;
        been digging"""
    )
    + spelled(
        ("find it", "found it", "find the process", "find that"),
        ("", "so", "really", "very", "super", "incredibly", "truly", "quite"),
        (
            *(
                "fulfilling",
                "rewarding",
                "relaxing",
                "calming",
                "therapeutic",
                "empowering",
                "cathartic",
                "fascinating",
            ),
            *("moving", "inspiring", "touching", "interesting", "enjoyable"),
        ),
    ),
    dislikes=phrases(
        """hate; hates; hated; hating; dislike; dislikes; disliked; can't stand; cannot stand; can not stand;
        can't bear; cannot bear; couldn't stand; can't deal with; not a fan; not a big fan; not really a fan;
        no fan of; detest; detests; loathe; loathes; despise; despises; sick of; tired of; fed up with; bored of;
        bored with; so done with; done with; over it; not into; not for me; never liked; not my thing;
        not my cup of tea; can't get used to; driving me nuts; driving me crazy; driving me mad; drives me nuts;
        drives me crazy; drives me mad; drive me nuts; drive me crazy; gets on my nerves; get on my nerves;
        makes my blood boil; make my blood boil; can't stomach; can't handle; never again; no good on;
        not fond of; allergic to; not big on; not a big fan of; dread; dreading; stresses me out; stress me out;
        drains me; irritates me; bugs me; scares me; terrifies me; freaks me out; creeps me out; makes me anxious;
        makes me nervous; makes me sad; makes me uncomfortable; not my favorite; not my favourite; over it;
        sick and tired; had enough of; allergic; isn't for me; is not for me; aren't for me; are not for me;
        wasn't for me; never been for me; make me cringe; makes me cringe; wear me out; wears me out;
        wear me down; wears me down; gross me out; grosses me out; can't be bothered with;
        not my scene; not my kind of thing"""
    ),
    neutral=phrases(
        """don't mind; do not mind; doesn't mind; don't care; doesn't matter; indifferent; so-so; meh;
        no preference; either way; neither here nor there; it's okay; it's ok; it's fine; it's alright"""
    ),
    bare=words("like likes liked"),
    before_bare=words(
        "i we you they he she really also do does did don't doesn't didn't not never kinda actually totally"
        " always just still definitely quite rather both all genuinely honestly truly"
    ),
    praise=(
        *spelled(
            ("makes", "make", "making"), _ME, ("happy", "happier", "smile", "feel good", "feel better", "feel alive")
        ),
        *spelled(
            ("helps", "help", "helping"),
            ("me",),
            ("relax", "unwind", "de-stress", "destress", "switch off", "clear my head"),
        ),
        *spelled(("calms", "calm", "relaxes", "relax", "soothes", "grounds", "centers", "centres"), ("me",)),
        *spelled(
            ("keeps", "keep", "kept", "keeping"), ("me",), ("sane", "grounded", "going", "calm", "alive", "at peace")
        ),
        *spelled(
            ("brings", "bring", "bringing", "gives", "give", "giving"),
            _ME,
            ("joy", "so much joy", "peace", "comfort", "happiness"),
        ),
        *spelled(
            ("makes", "make", "made"), ("me feel",), ("calm", "happy", "good", "better", "relaxed", "great", "at ease")
        ),
        *spelled(
            ("keeps", "keep", "kept"),
            ("my mind", "my head"),
            ("focused", "calm", "busy", "sharp", "clear", "off things"),
        ),
        *spelled(
            ("a", "a great", "a good", "a nice", "a perfect", "the best", "my", "my favourite", "my favorite"),
            ("way to",),
            ("relax", "unwind", "chill", "chill out", "de-stress", "destress", "escape", "switch off", "decompress"),
        ),
        *spelled(("", "so", "really", "very", "super", "incredibly"), ("therapeutic", "relaxing", "calming")),
        *spelled(("", "so", "really", "very", "super", "incredibly"), ("soothing", "addictive", "cathartic")),
        *spelled(_SO[1:], ("good", "great", "nice", "cool")),
        *spelled(_SO, ("fun", "tasty", "delicious", "beautiful", "yummy")),
        *phrases(
            """an escape; like meditation; like therapy; so fulfilling; really fulfilling; fulfilling;
            a great escape; an outlet; a creative outlet; a form of self-expression; a great stress reliever;
            stress reliever; stress relief; helps me cope; helps me focus; clears my mind; clear my mind;
            quiets my mind; quiet my mind; escape from; keeps me motivated;
            motivates me; gives me strength; fills me with joy; makes me feel happy; makes me feel good;
            keeps me happy; keeps me healthy; keeps me fit; great way to; fun way to; awesome way to; perfect way to;
            best way to; good way to; nice way to; lovely way to; amazing way to; great outlet; a great outlet;
            lifts my spirits; lift my spirits; recharges me; recharge me; energizes me; energises me; speaks to me;
            means a lot to me; means so much to me; means the world to me; close to my heart;
            a special place in my heart; special place in my heart; puts me in a good mood;
            cheers me up; cheer me up; puts a smile on my face; brightens my day; brighten my day;
            gives me a sense of; give me a sense of; gives me energy; gives me life; gives me purpose;
            makes me feel alive; makes me feel free; makes me feel at peace; makes me feel calm;
            makes me feel relaxed; makes me feel connected; makes me feel grounded; makes me feel at home;
            makes me feel so alive; makes me feel so good; makes me feel so free; make me feel alive;
            the highlight of my; highlight of my week;
            highlight of my day; best part of my day; best part of my week; best part of the day; the best part;
            amazing; awesome; incredible; brilliant; fantastic; wonderful;
            excellent; superb; outstanding; gorgeous; perfect; phenomenal; exquisite; divine; heavenly; to die for;
            unreal; legendary; a legend; a masterpiece; a gem; a classic; a banger; a vibe; the best;
            best; the goat; underrated; worth every penny; best money; a must; a treat; lovely; adorable; stunning;
            breathtaking; magical;
            the real reason; so satisfying; satisfying; mind-blowing; top notch; top-notch; stole my heart;
            stolen my heart; switches my brain off; switch my brain off; my brain goes quiet; clears my head;
            very helpful; so helpful; really helpful; only lure worth;
            kept me sane; kept me going; kept me grounded; kept me calm; brings joy; bring joy; brought me joy;
            puts me in a great mood; puts me in a better mood; puts me in a happy mood; inspiring; captivating;
            fascinating; hilarious; fascinates me; fascinate me; inspires me; inspire me; refreshes me; refresh me;
            at the top of my list; top of my list; gives me inspiration; give me inspiration;
            gives me a lot of inspiration; give me a lot of inspiration; bring me tons of joy; brings me tons of joy;
            brought me so much joy; special to me;
            brightens my days; brighten my days; brightens up my day; brightens up our day; helps me escape;
            help me escape; get me through; gets me through; getting me through; refreshes my soul;
            a source of comfort; a sanctuary; is life"""
        ),
    ),
    scorn=(
        *spelled(("", "so", "really", "very", "super", "incredibly", "pretty"), ("boring",)),
        *phrases(
            """dull; tedious; awful; terrible; horrible; horrendous; dreadful;
        disgusting; gross; revolting; the worst; worst; annoying; so annoying; irritating; overrated; a waste of time;
        waste of time; waste of money; soul destroying; soul-destroying; a nightmare; hell; tax hell; miserable;
        bland; tasteless; too depressing; too sweet; too much for me; too loud; too noisy; too clever; a scam;
        tastes like death; unbearable; exhausting; a drag; a pain; the pits; rubbish; garbage; trash; sucks;
        stinks; painful; frustrating; infuriating; maddening; insane; a joke; the bane of my; a human rights
        violation; nauseating; depressing; grim; ugh; a letdown; such a letdown; a disappointment;
        disappointing; underwhelming; mediocre; bores me; bore me; bored me; bores me to tears; bore me to tears"""
        ),
    ),
    reactions=phrases(
        """that's; that is; that was; that'll; this is; thats; sounds; sound; sounded; looks like; what a; how;
        you; you're; your; u; ur; youre; you'll; you'd; he; she; he's; she's; hes; shes; will be;
        'll be; gonna be; going to be; would be; could be; must be; might be; hope; wish; congrats; i'm; im; i am;
        it was; that was; this was; looks; look; looked; seems;
        being; been being;
        congratulations; news; seems; seem; they're going; everything; everyone; everybody; all the"""
    ),
    pointers=words("this that these those"),
    present=words("is are 's look looks"),
    events=phrases(
        """party; parties; wedding; trip; trips; holiday; holidays; vacation; weekend; night; nights; evening;
        day; days; week; weeks; month; year; time; times; news; decision; birthday; celebration; reunion; event;
        christmas; season; shower; honeymoon; date; visit; luck; idea; ideas; surprise; plan; plans"""
    ),
    works=words(
        "film films movie movies book books novel novels show shows series album albums song songs track tracks"
        " band bands music podcast podcasts game games food foods meal meals dish dishes pasta pizza ramen sushi"
        " coffee tea wine beer cake bread restaurant restaurants cafe café place places spot city town book"
        " views view sound smell taste flavour flavor recipe recipes sport hobby job work class classes course"
        " app apps show play musical concert gig read writer author artist singer painting pottery dancing dance"
        " hiking running yoga reading cooking baking gardening photography camping swimming surfing climbing"
        " bouldering art nature music skiing cycling biking knitting drawing sketching writing poetry guitar piano"
        " violin drums singing gaming games chess fishing sailing kayaking traveling travelling meditation pilates"
        " crossfit gym workout workouts walks walking jogging hike hikes trail trails beach beaches mountains park"
        " garden flowers plants instrument instruments volunteering swim ride rides"
    ),
    trail=words(
        "though tho too btw lol haha honestly actually really for in at on from with by when while if as"
        " af and but or so now still today tonight there here every all again anyway overall tbh imo ngl"
        " though"
    ),
    ever=phrases(
        """ever; of my life; in my life; in years; in ages; all year; in the world; i've ever; i have ever;
        i ever; in town; on earth; of all time"""
    ),
    nouns=(
        *words("favourite favorite favourites favorites fav fave faves favs passion passions thing jam hobby hobbies"),
        *phrases(
            """my escape; my happy place; my therapy; my meditation; my zen; my zen spot; my little zen spot;
            my comfort; my religion; my new religion; my vibe; my safe place; my sanctuary; my outlet; my release;
            my stress relief; my go-to; my guilty pleasure; my obsession; my new obsession; my addiction;
            my whole personality; my secret; my heroine; my hero; my happy time; my me time; my comfort viewing;
            my comfort food; my favourite"""
        ),
    ),
    bad_nouns=phrases("pet peeve; pet hate; nemesis; least favourite; least favorite"),
    owners=words("my our his her their your the a an this these those"),
    negations=phrases(
        """don't; do not; doesn't; does not; didn't; did not; not; never; no longer; won't; can't; isn't; aren't;
        wasn't; weren't; hardly; barely; nothing; none"""
    ),
    unmatched=words("nothing"),
    rivals=phrases("like; quite like; as much as; more than; the way"),
    once=words("loved enjoyed liked hated disliked"),
    orders=words("enjoy love"),
    blocks=(
        *spelled(
            (
                "i'd",
                "id",
                "we'd",
                "you'd",
                "youd",
                "he'd",
                "she'd",
                "they'd",
                "would",
                "would've",
                "will",
                "i'll",
                "you'll",
                "he'll",
                "she'll",
                "they'll",
                "we'll",
                "gonna",
                "going to",
                "might",
                "may",
            ),
            ("", "really", "so", "absolutely", "totally", "just"),
            ("love", "like", "enjoy", "adore", "hate"),
        ),
        *spelled(
            ("love", "luv", "loves", "loving"),
            (
                "you",
                "u",
                "ya",
                "yall",
                "y'all",
                "youuu",
                "youuuu",
                "you all",
                "to you",
                "to all",
                "to dev",
                "that for",
                "this for",
                "it for",
            ),
        ),
        *phrases(
            """my love; much love; lots of love; so much love; sending love; sending you love; send love; with love;
            give her my love; give him my love; give them my love; give my love; thanks love; thank you love;
            love to the; love to hamish; love to greg; enjoy your; enjoy yourself; hope you enjoy;
            hope you like; hope they like; hope they love; hope you love; hope she loves; hope he loves;
            hope she likes; hope he likes; want to like; want to love; love this; love that; love these;
            love the idea; like the idea; love the photo; love the pic; love the picture; love the colors;
            love the colours; love the look of; love the sound of; love the vibe; love the energy; love the name;
            love to see;
            love to hear; love to know; love to go; love to try; love to come; love to visit; love to meet;
            would love; would like; love that idea; like that idea; the best part is; all the best; best wishes;
            best of luck; the best of; best friend; best friends; bestie; best mate; do your best; did my best;
            doing my best; try my best; trying my best; at best; best part was; favourite photo; favorite photo;
            favourite picture; favorite picture; fav pic; favourite pic; perfect timing; timing is perfect;
            great time; a great time; great idea; great job; great news; amazing job; amazing news; amazing time;
            great to hear; good to hear; so good to hear; so good to see; fun fact; for fun; have fun; had fun;
            was fun; good luck; good night; good morning; good job; good news; a good time; so good at; good at;
            good for; fire alarm; on fire; fire station; lit up; the worst part; worst case; at worst; the thing is;
            thing is; the only thing; one thing; a thing; same thing; first thing; last thing; the whole thing;
            other thing; things; any thing; good thing; funny thing; thing about; in love; sounds like; looks like;
            feels like; felt like; seems like; just like; personal best; best buy;
            best friend's; lovely to hear; lovely to see; lovely to meet; falls in love; fall in love; hell yeah;
            hell yes; what the hell;
            the hell; like hell; a hell of; hell of a; oh my god; omg; perfect for; perfect fit; fits perfectly;
            is perfect for; great for; good for you; a great; pain in; a pain in"""
        ),
    ),
    selves=words("i i'm im i've ive i'd i'll we we're we've me my our myself mine ourselves"),
    holders=words("he she they he's she's they're hes shes theyre it"),
    others=words(
        "you your yours you're you've you'd you'll u ur youre yall y'all who whoever that which people everyone"
        " everybody anyone anybody someone somebody nobody no one in of with about the a an this these those"
        " to's"
    ),
    addressee=words("you your yours you're you've u ur youre yall y'all"),
    fillers=phrases(
        """must; would; will; do; does; did; really; also; always; still; just; so; totally; truly; absolutely;
        definitely; probably; might; may; can; could; should; all; both; too; surely; certainly; be; been; very;
        quite; is; are; am; was; were; kind of; sort of; kinda; sorta; actually; honestly; genuinely; seriously;
        literally; now; already; especially; lowkey; low key; secretly; also really; getting; got; get; become;
        becoming; became; started to; starting to; begun to; beginning to; growing to; grown to; come to;
        came to; learned to; learnt to; learning to; tend to; has; have; had; 's; 're; 'm; 've; it's; that's;
        there's; here's; what's; let's; pretty; super; so much; a lot; a little; a bit; much; more; most;
        even; only; simply; deeply; madly; thoroughly; immensely; fully; completely; utterly; totally;
        sooo; soooo; ok; okay; yeah; yes; oh; haha; lol; tbh; rn; right now; these days;
        lately; recently; hello; hi; hey; ha; lmao; omg; wow; aw; aww; ah; bro; dude; man; girl;
        i think; i guess; i must say; i have to say; i gotta say; i'll admit; i admit;
        i must confess; i do; big; huge; massive; total; complete; such a; such; a real; a true; a"""
    ),
    joins=words("and but or then so to n yet plus"),
    reasons=phrases("because; cause; 'cause; coz; since; due to; —; –"),
    reason_openers=phrases("too; so; way too; it's; it is; they're; they are; it was; they were; always; very; really"),
)

LANGUAGE = Language(
    code="en",
    stemmer="english",
    stopwords=STOPWORDS,
    votes=vote_words(STOPWORDS, GREETINGS, EXCLAMATIONS, SIGN_OFFS, SHARED),
)

_I_AM = r"\bi(?:'m|’m| am)"
_NOW = r"(?:now |currently |still |finally |just |recently )?"
#: A name written with capitals ("call me back" names no one).
_CAPITALISED = r"(?-i:(?P<value>[A-Z][\w'-]*(?: [A-Z][\w'-]*)?))"
_MEAT_FREE = r"(?:stopped|quit|gave up) eating (?:meat|animal products)"
SLOTS = SlotWords(
    patterns=(
        ("name", r"\bmy name(?: is|'s|’s) {v}"),
        ("name", r"\b(?:please )?call me " + _CAPITALISED),
        ("name", r"\bi go by " + _CAPITALISED),
        ("name", r"\bi changed my name to {v}"),
        ("age", _I_AM + r" (?:now )?{n}(?= years? old| yo\b| now\b| today\b| and\b|\s*[,.;!]|\s*$)"),
        ("age", r"\bi (?:just |recently )?turned {n}\b"),
        ("location", r"\b(?:i|we) " + _NOW + r"(?:live|am living|'m living|are living|'re living) in {v}"),
        ("location", r"\b(?:i|we)(?:'ve| have)? " + _NOW + r"(?:moved|relocated) (?:\w+ )?to {v}"),
        ("location", _I_AM + r" " + _NOW + r"based in {v}"),
        ("location", r"\bmy home is (?:now )?in {v}"),
        ("job", r"\bi(?:'m| am)? " + _NOW + r"(?:work|working) as (?:an? )?{v}"),
        ("job", _I_AM + r" now an? {v}"),
        ("job", _I_AM + r" an? (?P<value>\w+(?: \w+)?) now\b"),
        ("job", r"\bi (?:just |recently )?became an? {v}"),
        ("job", r"\bmy (?:job|profession|occupation) is (?:an? )?{v}"),
        ("job", r"\bi got a job as (?:an? )?{v}"),
        ("employer", r"\bi(?:'m| am)? " + _NOW + r"(?:work|working) (?:at|for) {v}"),
        ("employer", r"\bi (?:just |recently )?(?:got a job|started working|started a new job) (?:at|with|for) {v}"),
        ("employer", r"\bi (?:just |recently )?joined (?-i:(?P<value>[A-Z][\w&.-]*(?: [A-Z][\w&.-]*)*))"),
        ("employer", _I_AM + r" (?:now )?employed (?:at|by) {v}"),
    ),
    values=(
        ("diet", "vegan", _I_AM + r" " + _NOW + r"(?:an? )?vegan\b"),
        ("diet", "vegan", r"\bi (?:went|became|have become|'ve become|turned) (?:an? )?vegan\b"),
        ("diet", "vegetarian", _I_AM + r" " + _NOW + r"(?:an? )?vegetarian\b"),
        ("diet", "vegetarian", r"\bi (?:went|became|have become|'ve become|turned) (?:an? )?vegetarian\b"),
        ("diet", "vegetarian", r"\bi " + _NOW + _MEAT_FREE),
        ("diet", "vegetarian", r"\bi (?:don't|do not|no longer|never) eat meat\b"),
        ("diet", "pescatarian", _I_AM + r" " + _NOW + r"(?:an? )?pescatarian\b"),
        ("diet", "omnivore", _I_AM + r" (?:not|no longer) (?:an? )?(?:vegetarian|vegan)\b"),
        ("diet", "omnivore", r"\bi (?:eat|started eating|am eating|'m eating) meat\b"),
    ),
    stops=words(
        "and but with since for now because as at in from again anymore these this last next so which who where"
        " near after before until right currently too also though actually i we my our years today then when"
        " while lol haha every already ago a one two three four five six seven eight nine ten few several months"
        " weeks days"
    ),
    not_values=words(
        "a an my our his her their this that it there here myself home some one another not no"
        " vegetarian vegan pescatarian big huge little bit lot mess fan member part proud better good happy"
        " stable boring hard tough fine great ok okay stressful exhausting demanding fun exciting amazing interesting"
        " tiring busy so really very pretty quite going getting killing driving"
        " mom mum mother dad father parent grandmother grandfather grandma grandpa aunt uncle wife husband"
    ),
    articles=words("the"),
)

#: A relation's word to the relation (the English words of every table's ``relatives``).
RELATIVES = {
    **{w: w for w in words("sister brother mother mom mum father dad wife husband partner girlfriend boyfriend")},
    **{w: w for w in words("son daughter friend colleague boss grandma grandmother grandpa grandfather niece")},
    **{w: w for w in words("nephew aunt uncle cousin fiancé fiancée roommate flatmate housemate neighbour neighbor")},
    **{w: w for w in words("sister-in-law brother-in-law mother-in-law father-in-law stepmom stepdad grandson")},
    **{w: w for w in words("granddaughter twin classmate")},
    "coworker": "colleague",
    "co-worker": "colleague",
    "mommy": "mom",
    "daddy": "dad",
    "kid": "child",
    "child": "child",
    "baby": "child",
}
#: Words after an animal that make it a thing, not a pet ("dog food", "horse painting").
_PET_THINGS = (
    "food|bowl|bed|toys?|treats?|hair|fur|allergy|allergies|walker|sitter|trainer|show|costume|photos?|pictures?|"
    "paintings?|drawings?|tattoo|mug|shirt|lovers?|person|people|park|friendly|videos?|memes?|cafe|shelter|years"
)
_YEARS = r"(?:now |currently |still |also |finally |just |recently )?"
_GOING = r"(?:flying|travel(?:l)?ing|heading|going|off|driving|moving back) (?:back )?to"
ENTITIES = EntityWords(
    mine=(
        ("job", "", _I_AM + r" " + _YEARS + r"an? {job}"),
        ("job", "", r"\bi(?:'ve|’ve| have) been (?:working as )?an? {job}(?= for\b| since\b)"),
        ("employer", "", r"\bi (?:just |recently )?started (?:a new job |working )?at {v}"),
        ("place", "origin", r"\b(?:i|we)(?:'m|’m| am|'re|’re| are) (?:originally |actually )?from {v}"),
        ("place", "origin", r"\bi (?:originally )?come from {v}"),
        ("place", "origin", r"\b(?:i|we) grew up in {v}"),
        ("place", "origin", r"\bi was born (?:and raised )?in {v}"),
        ("place", "work", r"\b(?:i|we) " + _YEARS + r"(?:work|'m working|’m working|am working) in {v}"),
        (
            "place",
            "travel",
            r"\b(?:i|we)(?:'m|’m| am|'re|’re| are) (?:just |finally )?(?:" + _GOING + r"|visiting) {v}",
        ),
        ("place", "travel", r"\b(?:i|we) (?:just |finally )?(?:went|flew|travel(?:l)?ed|drove) (?:back )?to {v}"),
        ("place", "travel", r"\b(?:i|we) (?:just )?(?:got|came) back from {v}"),
        ("place", "travel", r"\b(?:i|we) (?:just )?(?:visited|spent (?:a|two|three|\w+) (?:days?|weeks?) in) {v}"),
        ("place", "travel", r"\b(?:my|our) (?:\w+ )?(?:trip|holiday|vacation|honeymoon) (?:to|in) {v}"),
    ),
    holder=r"\b(?:my|our) {adj}{rel}(?:,?\s+{name})?(?:,?\s+who)?",
    theirs=(
        ("job", "", r"\s+(?:now |also |still )?(?:works|is working) as (?:an? )?{v}"),
        ("job", "", r"(?:\s+is|'s|’s|\s+has become|\s+became) (?:now |also |still |actually )?an? {job}"),
        ("employer", "", r"\s+(?:now |also |still )?(?:works|is working) (?:at|for) {v}"),
        ("employer", "", r"\s+(?:just |recently )?joined {name}"),
        ("place", "home", r"\s+(?:now |still |also )?(?:lives|is living) in {v}"),
        ("place", "home", r"(?:\s+has|'s|’s)? (?:just |recently )?moved to {v}"),
        ("place", "origin", r"(?:\s+is|'s|’s) (?:originally )?from {v}"),
        ("place", "work", r"\s+(?:now |also |still )?works in {v}"),
    ),
    job_verbs=(
        (r"\bi " + _YEARS + r"teach(?:\s+{v})?", "{v} teacher", "teacher"),
        (r"\bi(?:'m|’m| am) " + _YEARS + r"teaching(?:\s+{v})?", "{v} teacher", "teacher"),
        (r"\bi " + _YEARS + r"drive an? (?P<value>taxi|cab|bus|truck|lorry|tram|train|forklift)\b", "{v} driver", ""),
    ),
    their_job_verbs=(
        (r"\s+(?:now |also |still )?teaches(?:\s+{v})?", "{v} teacher", "teacher"),
        (r"\s+(?:now |also |still )?drives an? (?P<value>taxi|cab|bus|truck|lorry|tram|train)\b", "{v} driver", ""),
    ),
    tails=(("employer", "", r"\b(?:at|for) {v}"), ("place", "work", r"\bin {v}"), ("job", "", r"\bas an? {job}")),
    people=(
        r"\b(?:my|our) {adj}{rel},?\s+{name}",
        r"\b(?:my|our) {adj}{rel}(?:'s|’s) name is {name}",
        r"\b(?:my|our) {adj}{rel} is (?:called|named) {name}",
        r"(?:^|(?<=\s)){name} is (?:my|our) {adj}{rel}\b(?!['’-])",
    ),
    animals=(
        r"\b(?:my|our) {adj}{pet},?\s+{name}",
        r"\b(?:an?|my|our|two|three) {adj}{pet},? (?:called|named) {name}",
        r"\b(?:my|our) {adj}{pet}(?:(?:'s|’s) name is| is called| is named) {name}",
        r"\b(?:i|we)(?:'ve|’ve| have)? (?:just |also |finally )?(?:got|have|adopted|own|rescued)"
        r" (?:an?|two|three|four) {adj}{pet},?\s+{name}",
        r"\b(?:i|we)(?:'ve|’ve| have)? (?:just |also |finally )?(?:got|have|adopted|own|rescued)"
        r" (?:an?|two|three|four|some) {adj}{pet}",
        # "my dog", but not "my dog food", "my horse painting"
        r"\b(?:my|our) {adj}{pet}(?![^\W_])(?![ -](?:" + _PET_THINGS + r")\b)",
    ),
    jobs=(
        *words(
            """teacher nurse doctor physician surgeon dentist pharmacist vet veterinarian midwife paramedic therapist
        physiotherapist psychologist psychiatrist counsellor counselor engineer developer programmer designer
        architect lawyer solicitor barrister attorney paralegal accountant bookkeeper auditor banker economist
        analyst consultant scientist researcher professor lecturer tutor librarian journalist reporter editor
        writer author translator interpreter photographer illustrator animator artist musician chef baker
        butcher barista bartender waiter waitress cashier receptionist secretary clerk technician electrician
        plumber carpenter mechanic builder pilot firefighter farmer gardener hairdresser barber cleaner
        caretaker carer caregiver nanny manager director administrator entrepreneur freelancer coach
        instructor trainer chemist biologist physicist mathematician statistician historian"""
        ),
        "police officer",
        "social worker",
        "care worker",
        "factory worker",
        "construction worker",
        "civil servant",
        "flight attendant",
        "estate agent",
        "real estate agent",
        "travel agent",
        "bus driver",
        "taxi driver",
        "truck driver",
        "lorry driver",
        "delivery driver",
        "personal assistant",
        "teaching assistant",
        "web developer",
        "data scientist",
        "software developer",
        "product manager",
        "project manager",
    ),
    not_jobs=words(
        """good great bad terrible awful decent lousy nervous careful fast slow quick big huge massive proud happy
        better best worst fan of and or the hobby amateur aspiring wannabe former ex future retired
        not no never"""
    ),
    adjectives=words(
        """older younger little big best oldest youngest eldest elder baby twin dear old new lovely sweet late
        step half rescue senior young two three beloved"""
    ),
    being=r"\bi(?:'m|’m| am)\b|\bi (?:just |recently )?became\b",
    relatives=RELATIVES,
    pets={
        **{w: w for w in words("dog puppy cat kitten parrot budgie rabbit bunny hamster tortoise turtle goldfish")},
        **{w: w for w in words("horse pony ferret snake lizard gecko rat mouse chicken hen cockatiel canary bird")},
        **{w: w for w in words("fish chinchilla")},
        "guinea pig": "guinea pig",
        "pup": "puppy",
        "kitty": "cat",
    },
    hypothetical=(
        "if",
        "would",
        "i'd",
        "we'd",
        "wish",
        "imagine",
        "suppose",
        "someday",
        "one day",
        "dream of",
        "dreaming of",
        "hope to",
        "hoping to",
        "want to",
        "wanna",
        "plan to",
        "planning to",
        "thinking of",
        "thinking about",
        "considering",
        "might",
        "maybe",
        "could",
        "should",
        "unless",
        "pretend",
    ),
    joins=words("and but because while so though although where which who whereas"),
    connectors=words("of upon de la del du am"),
    stops=words("to on"),
    not_values=words("IT HR PR QA ER ICU A&E R&D my our his her their him them me myself yourself himself herself you"),
)

#: Questions that ask the speaker's own single value (``caim.memory.text.slots.asked``): (attribute,
#: pattern) pairs matched without regard to case in a question sentence. Present tense only: a
#: question about the past does not ask the current value.
ASKS: tuple[tuple[str, str], ...] = (
    ("name", r"\bwhat(?:'s|’s| is| was) my (?:full |first |last |real )?name\b"),
    ("name", r"\b(?:do|did) you (?:know|remember) my name\b"),
    ("name", r"\bwhat (?:do|should) (?:you|people) call me\b"),
    ("age", r"\bhow old am i\b"),
    ("age", r"\bwhat(?:'s|’s| is) my age\b"),
    ("location", r"\bwhere (?:do|am|are) (?:i|we) (?:\w+ )?(?:live|living|based|staying)\b"),
    (
        "location",
        r"\b(?:which|what) (?:city|town|country|place) (?:do|am|are) (?:i|we) (?:\w+ )?(?:live|living|based)\b",
    ),
    ("location", r"\bwhere(?:'s|’s| is) my home\b"),
    ("location", r"\bwhere(?:'s|’s| is) home for me\b"),
    ("diet", r"\bwhat(?:'s|’s| is) my diet\b"),
    ("diet", r"\bwhat (?:kind of )?diet (?:do|am) i\b"),
    ("diet", r"\bam i (?:still )?(?:an? )?(?:vegetarian|vegan|pescatarian)\b"),
    ("diet", r"\bdo i (?:still )?eat meat\b"),
    ("job", r"\bwhat(?:'s|’s| is) my (?:job|profession|occupation|line of work|job title)\b"),
    ("job", r"\bwhat do i do for (?:a living|work)\b"),
    ("job", r"\bwhat (?:kind of )?(?:work|job) do i (?:do|have)\b"),
    ("employer", r"\bwhere do i (?:\w+ )?work\b(?! ?out)"),
    ("employer", r"\b(?:which|what) (?:company|firm|organi[sz]ation|employer) do i (?:\w+ )?work (?:for|at)\b"),
    ("employer", r"\bwho do i (?:\w+ )?work for\b"),
    ("employer", r"\bwho(?:'s|’s| is) my employer\b"),
)

#: English's goal-aware recall is ``caim.memory.intents``' own patterns.
INTENTS = None
