"""Japanese: written without spaces, indexed like Chinese as single characters and pairs, leaving out
single hiragana (particles and endings, ``STOPWORDS``); and the code signals' words, matched
anywhere in the text. Japanese drops the subject, so a clause ending in a past form tells a past
action without one. Detection tells Japanese from Chinese by its kana (``caim.memory.text.lang``).
``SLOTS``: single-value facts the speaker states of themselves; ``ENTITIES``: the work, places,
people and pets of their life.
"""

from __future__ import annotations

from caim.memory.text.intent_words import HAN_NUMBERS, IntentWords
from caim.memory.text.lang_zh import NUMERALS
from caim.memory.text.tables import (
    DAYS,
    EntityWords,
    Language,
    PastTense,
    PolarityWords,
    Signals,
    SlotWords,
    TimeWords,
    combine,
    words,
)

# Goal-aware recall (``caim.memory.intents``): request cues, closed vocabularies and slot words.
INTENTS = IntentWords(
    code="ja",
    unspaced=True,
    cues={
        "restaurant": ("レストラン", "(?:席|テーブル|お店)を?.{0,6}予約", "ディナー", "ランチ", "食事に行"),
        "travel": ("旅行", "旅に", "休暇", "バカンス"),
        "gift": ("プレゼント", "贈り物", "ギフト"),
        "appointment": (
            "(?:歯医者|病院|医者|美容院|床屋|獣医|整体|皮膚科|眼科).{0,12}予約",
            "予約.{0,8}(?:歯医者|病院|美容院)",
            "診察",
        ),
        "entertainment": ("映画", "コンサート", "ライブ", "芝居", "チケット", "ミュージカル"),
    },
    vocab={
        "cuisine": {
            "イタリアン": "italian",
            "イタリア料理": "italian",
            "和食": "japanese",
            "日本料理": "japanese",
            "中華": "chinese",
            "メキシコ料理": "mexican",
            "インド料理": "indian",
            "カレー": "indian",
            "タイ料理": "thai",
            "フレンチ": "french",
            "フランス料理": "french",
            "韓国料理": "korean",
            "ベトナム料理": "vietnamese",
            "寿司": "sushi",
            "ピザ": "pizza",
            "ラーメン": "ramen",
        },
        "diet": {
            "ベジタリアン": "vegetarian",
            "菜食": "vegetarian",
            "ヴィーガン": "vegan",
            "ビーガン": "vegan",
            "グルテンフリー": "gluten-free",
            "ハラール": "halal",
        },
        "lodging": {
            "ホテル": "hotel",
            "ホステル": "hostel",
            "旅館": "guesthouse",
            "民宿": "guesthouse",
            "キャンプ": "camping",
        },
        "transport": {
            "電車": "train",
            "新幹線": "train",
            "飛行機": "plane",
            "車で": "car",
            "バス": "bus",
            "フェリー": "ferry",
            "自転車": "bike",
        },
        "occasion": {
            "誕生日": "birthday",
            "記念日": "anniversary",
            "結婚式": "wedding",
            "クリスマス": "christmas",
            "退職": "retirement",
            "卒業": "graduation",
        },
        "provider": {
            "歯医者": "dentist",
            "医者": "doctor",
            "整体": "physiotherapist",
            "美容院": "hairdresser",
            "床屋": "barber",
            "獣医": "vet",
            "眼科": "optician",
            "皮膚科": "dermatologist",
        },
        "time": {
            "午前": "mornings",
            "朝": "mornings",
            "午後": "afternoons",
            "夕方": "evenings",
            "夜": "evenings",
            "週末": "weekends",
        },
        "genre": {
            "ホラー": "horror",
            "コメディ": "comedy",
            "SF": "sci-fi",
            "ジャズ": "jazz",
            "ロック": "rock",
            "クラシック": "classical",
            "オペラ": "opera",
            "ミュージカル": "musical",
        },
    },
    people=(r"(?P<n>\d{1,2}|二|三|四|五|六|七|八|九|十)人", r"(?P<n>ふたり)"),
    numbers={**HAN_NUMBERS, "ふたり": "2"},
    money=r"\d[\d,]*\s?(?:円|ユーロ|ドル)|[¥￥]\s?\d[\d,]*",
    relatives={
        "姉": "sister",
        "妹": "sister",
        "兄": "brother",
        "弟": "brother",
        "母": "mother",
        "父": "father",
        "妻": "wife",
        "夫": "husband",
        "彼女": "girlfriend",
        "彼氏": "boyfriend",
        "友達": "friend",
        "息子": "son",
        "娘": "daughter",
        "祖母": "grandma",
        "祖父": "grandpa",
        "甥": "nephew",
        "姪": "niece",
        "同僚": "colleague",
    },
    mine="(?:私の|僕の|うちの)?{rel}",
    company="{rel}と",
    likes="(?:彼女|彼|{rel})は(?P<thing>[^、。！？,.!?は]{1,15}?)が(?:大)?好き",
    ends="(?:と|、)",
    outcomes={
        "cancelled": "(?:キャンセル|取り消し|やめておきます|やめます|やめよう)",
        "booked": "(?:予約しました|予約済み|予約できました|予約が取れ|購入しました|注文しました|確定しました)",
        "chosen": "(?:にします|にしよう|に決めました|に決めた)",
    },
)

#: Single hiragana (particles, endings) and the first-person pronouns, left out as single characters.
STOPWORDS = frozenset(chr(c) for c in range(0x3041, 0x30A0)) | frozenset("私僕俺々ー")

_MONTHS = {str(i): i for i in range(1, 13)} | {
    n: i for i, n in enumerate(words("一 二 三 四 五 六 七 八 九 十 十一 十二"), start=1)
}
WEEKDAYS = {f"{d}曜日": i for i, d in enumerate("月火水木金土日")}
_DAYS = {f"{d}曜日": en for d, en in zip("月火水木金土日", DAYS, strict=True)}

TIME = TimeWords(
    phrases={
        "昨日": "yesterday",
        "きのう": "yesterday",
        "一昨日": "the day before yesterday",
        "おととい": "the day before yesterday",
        "今日": "today",
        "きょう": "today",
        "今朝": "this morning",
        "今夜": "tonight",
        "今晩": "tonight",
        "昨夜": "last night",
        "昨晩": "last night",
        "ゆうべ": "last night",
        "明日": "tomorrow",
        "あした": "tomorrow",
        "最近": "recently",
        "近頃": "lately",
        "この前": "the other day",
        "先日": "the other day",
        "数日前": "a few days ago",
        "先週": "last week",
        "今週": "this week",
        "来週": "next week",
        "先月": "last month",
        "今月": "this month",
        "来月": "next month",
        "去年": "last year",
        "昨年": "last year",
        "今年": "this year",
        "来年": "next year",
        "先週末": "last weekend",
        "今週末": "this weekend",
        **combine({"先週の": "last", "今週の": "this", "来週の": "next"}, _DAYS, sep=""),
    },
    ago="{count}{unit}前",
    counts={c: str(n) for c, n in NUMERALS.items() if n and c != "两"} | {"数": "a few"},
    units={"日": "day", "週間": "week", "週": "week", "か月": "month", "ヶ月": "month", "カ月": "month"}
    | {"ヵ月": "month", "ケ月": "month", "年": "year"},
    months=_MONTHS,
    weekdays=WEEKDAYS,
    dates=(r"(?:{year}年)?{month}月{day}日", r"{year}年{month}月"),
    in_month=(r"{month}月(?![\d〇一二三四五六七八九十])",),
    markers=("以来", "当時", "昔"),
)

SIGNALS = Signals(
    first_person=words("私 わたし 僕 ぼく 俺 おれ あたし 私たち 僕たち 我々 うち"),
    # someone else as the subject, the speaker's family named humbly as one's own ("妹は..." is "my sister")
    third_person=words("彼 彼女 彼ら 妹 弟 姉 兄 母 父 夫 妻 息子 娘 家族 友達"),
    telling=words(
        """です でした ます ました います ています 好き 大好き 嫌い 住んで 働いて 勉強 趣味 持って 飼って 結婚
        生まれ 引っ越 始め 買い 買った 作っ 欲しい したい 予定 いつも よく 毎日 毎週 アレルギー できない"""
    ),
    reactions=words("ごめん すみません 申し訳 残念 よかったね 良かったですね おめでとう"),
    past=PastTense(
        markers=words(
            """ました でした かった った んだ いた した えた きた べた みた けた れた せた てた ねた めた げた ぎた
            びた りた じた ちた"""
        ),
        subject_required=False,
    ),
    past_reference=words(
        """覚えて 思い出 言った 話した 伝えた 教えた 教えてくれた 勧めてくれた おすすめしてくれた 前に 以前 この前
        先日 前回 また もう一度 再び"""
    ),
    asks_past=words("以前 前に 昔 元々 もともと かつて 当時 前の 元の"),
    when=words("いつ 何年 何月 何日 何曜日 どのくらい前 どれくらい前 何時"),
    aggregate=words("いくつ 何回 何冊 何本 何人 何個 何度 どれだけ"),
    question_words=words("何 誰 どこ いつ なぜ どうして どう どれ どの"),
    question_ends=words("か かな"),
    greetings=words(
        """こんにちは こんばんは おはよう おはようございます ありがとう ありがとうございます どうも やあ
        はじめまして"""
    ),
    exclamations=words(
        "すごい すごいね いいね 素晴らしい わあ わー やった 最高 なるほど 素敵 素敵ですね よかった いいですね"
    ),
    sign_offs=words(
        """はい うん ええ 了解 了解です わかりました 分かりました さようなら またね じゃあね おやすみ
        おやすみなさい バイバイ"""
    ),
    openers=words("はい ええ うん あ ああ あの えっと えーと そうですね なるほど ありがとう こんにちは わあ へえ"),
    name_after=words("さん ちゃん くん 君 様 さま 先生 氏 という名前 って名前"),
    self_one="私",
    self_both="私たち",
    joins=words("と"),
    quotes="\u201c\u300c\u300e",
    titles=(("『", "』"), ("「", "」"), ("《", "》")),
    giving=words("おすすめ お勧め オススメ 勧め 提案 予約しました 送りました リマインド"),
    accepting=words(
        """ありがとう ありがとうございます 了解 わかりました 分かりました いいね いいですね
        いいアイデア 試してみます 試してみる
        やってみます やってみる そうします そうする 助かります 助かる 楽しみ 最高"""
    ),
    refusing=words("いいえ 結構です 大丈夫です やめておきます 遠慮します 興味ない"),
    claims=words("おっしゃって 言ってました 言っていた 話してくれた あなたは あなたの"),
    wishes=words("楽しんで 頑張って がんばって お大事に 良い一日 いい一日 気をつけて またね おやすみ 応援して"),
    dropped=words(
        """ている てる ています てます ていた てた てて でいる でる でいます でいた でて つもり 予定 ことにした
        ことにしました ところ 好き 大好き 苦手 嫌い 無理 怖い ハマって はまって 始めた 始めました 通って 飼って
        働いて 住んで 習って 引っ越 転職 辞め"""
    ),
    addressing=words("あなた 君 きみ お前 たらどう ほうがいい 方がいい なんて 分かります 分かる わかる"),
    time=TIME,
)

#: Preference cues (``caim.memory.text.polarity``).
POLARITY = PolarityWords(
    likes=words(
        """好き 大好き 気に入 愛して ハマって はまって ハマり ハマる 推し 夢中 好物 お気に入り 欠かせない 欠かせません
        応援しています 応援してる 応援して ファン 何度読んでも 何度見ても 何回見ても 読み直して 見返して 趣味 やみつき
        病みつき 目がない 好み 興味がある 興味あります 生きがい ストレス解消 リフレッシュ クセになる 癖になる
        やめられない 虜 とりこ イチオシ 一押し 愛用 ハマった はまった ハマっちゃった"""
    ),
    dislikes=words(
        """嫌い 大嫌い 苦手 嫌だ いやだ 耐えられない 嫌がる 嫌がって うんざり 飽きた
        面倒 めんどくさい 面倒くさい めんどう 我慢できない 勘弁 こりごり 二度と 飽きてきた 飽きてる 飽きちゃった
        には合わない 性に合わない イライラする いらいらする 気が滅入る 憂うつ 憂鬱 ストレスがたまる
        ストレスが溜まる 嫌になる 嫌になった"""
    ),
    neutral=words("どちらでもいい どっちでもいい 普通 まあまあ"),
    praise=words(
        """最高 面白い おもしろい 楽しい 美味しい おいしい うまい 旨い めっちゃよかった すごくよかった すごく良かった
        とてもよかった とても良かった めっちゃ良かった 素敵 素晴らしい 感動 癒される 癒し 落ち着く 最強 絶品 名作 傑作
        気持ちいい 心地いい 幸せ ほっとする リラックス 面白かった おもしろかった 美味しかった おいしかった 泣けた
        逃げ場 心の支え 心のよりどころ 息抜き 癒やし 正気を保て 正気でいられる 救われ 楽しくなる 気分が上がる 元気になる
        元気が出る
        頭がすっきり 気分がすっきり スッキリする すっきりする 性に合ってる 性に合う"""
    ),
    scorn=words(
        "つまらない つまらなかった まずい まずかった 退屈 最悪 ひどい うるさい しんどい だるい 微妙 イマイチ いまいち"
        " つまらなくて つまらなくてしかたない つまらなくて仕方ない 退屈でしかたない 退屈で仕方ない"
    ),
    reactions=words("あなた 君 きみ すごい おめでとう いいね さすが"),
    events=words("パーティー 旅行 週末 結婚式 誕生日 飲み会 ニュース アイデア"),
    negations=words("じゃない ではない ではありません じゃありません じゃなく ない なかった くない"),
    blocks=words(
        """楽しみ 楽しんで よかったね 良かったね 無理しないで 無理しない 好きにして 好きなだけ 好きな時 好きなように
        おいしそう 美味しそう 楽しそう 面白そう"""
    ),
    selves=words("私 わたし 僕 ぼく 俺 おれ あたし 自分"),
    possessives=words("の"),
    holders=words(
        """彼 彼女 妹 姉 兄 弟 母 父 息子 娘 夫 妻 旦那 嫁 友達 同僚 猫 犬 子ども 子供 さん ちゃん くん 祖母 祖父 上司
        部長 課長"""
    ),
    others=words("あなた 君 きみ お前"),
    fillers=words("めっちゃ すごく とても 本当に ほんとに 本当 ほんと 超 まじ マジ 一番 やっぱり やっぱ は が も"),
    reasons_before=words("ので から"),
)

#: A relation's word to the English relation: goal-aware recall's, and more.
_RELATIVES = INTENTS.relatives | {
    **{"姉さん": "sister", "兄さん": "brother", "いとこ": "cousin", "従姉妹": "cousin", "叔母": "aunt"},
    **{"叔父": "uncle", "ルームメイト": "roommate", "上司": "boss", "親友": "friend", "婚約者": "fiancé"},
}
#: Another person as a sentence's subject: a relation, or "he", "she", "the family".
_OTHERS = "|".join(sorted({*_RELATIVES, "彼", "家族"}, key=len, reverse=True))

LANGUAGE = Language(code="ja", stopwords=STOPWORDS, unspaced=True, signals=SIGNALS)

SLOTS = SlotWords(
    patterns=(
        ("name", r"(?:私|僕|俺)の名前は{v}です"),
        ("name", r"{v}と(?:申します|いいます|言います)"),
        ("age", r"{n}歳(?:です|になりました|になった|だ)"),
        ("location", r"{v}に(?:住んで(?:います|いる|る|おります|いて)|引っ越(?:しました|した|してきました))"),
        ("job", r"(?:[^、。]{0,15}?で)?{v}として働いて(?:います|いる|る)"),  # "トヨタでエンジニアとして": the job alone
        ("job", r"仕事は{v}です"),
        ("employer", r"{v}に(?:勤めています|勤めている|就職しました|入社しました)"),
    ),
    values=(
        ("diet", "vegan", r"(?:ヴィーガン|ビーガン)(?:です|になりました|になった)"),
        ("diet", "vegetarian", r"(?:ベジタリアン|菜食主義者)(?:です|になりました|になった)"),
        ("diet", "vegetarian", r"肉を食べ(?:ません|ない|なくなりました)"),
        ("diet", "omnivore", r"(?:また|再び)肉を食べ(?:ます|る|始めました)"),
    ),
    stops=("今", "は"),
    not_values=("私", "僕", "俺"),
    others="(?:" + _OTHERS + ")(?:さん|ちゃん|くん)?(?:は|が|も)",
)

#: A value in Japanese: a run of characters up to a particle.
_JA_VALUE = r"(?P<value>[^\s、。！？「」『』はがをにでのへともか]{1,12})"
#: A name: katakana, or Latin letters.
_JA_NAME = r"(?P<value>[ァ-ヺー]{2,10}|[A-Za-z][A-Za-z'’-]*)"
_WATASHI = r"(?:(?:私|僕|俺|わたし|あたし)(?:は|も))?(?:今は|現在は|今)?"
_JOB_ENDS = r"(?:です|でございます|をしています|をしております|をやっています|として働いて)"
ENTITIES = EntityWords(
    mine=(
        ("job", "", r"^" + _WATASHI + r"(?:[^、。]{0,15}?で)?{job}" + _JOB_ENDS),
        (
            "site",
            "",
            r"^" + _WATASHI + r"(?P<value>[^\s、。でのにはがを]{1,15})で[^、。]{0,10}?{jobs}"
            r"(?:をして|をやって|として働いて)",
        ),
        (
            "site",
            "",
            r"^"
            + _WATASHI
            + r"(?:[^、。]{0,15}?として)?(?P<value>[^\s、。でにはがを]{1,15})で働いて(?:います|いる|おります)",
        ),
        ("job", "", r"^" + _WATASHI + r"{job}として[^、。]{0,15}?働いて"),
        ("place", "origin", r"(?P<value>[^\s、。でのにはがを出]{1,10})(?:の)?出身(?:です|だ|で)"),
        ("place", "origin", r"出身は(?P<value>[^\s、。でのにはがを]{1,10})(?:です|だ)"),
        ("place", "origin", r"(?P<value>[^\s、。でのにはがをか]{1,10})から来(?:ました|た)"),
        ("place", "origin", r"(?P<value>[^\s、。でのにはがを]{1,10})で(?:生まれ|育ち|育って|育った)"),
        ("place", "travel", _JA_VALUE + r"(?:に|へ)(?:旅行|出張)"),
        ("place", "travel", _JA_VALUE + r"を旅行"),
    ),
    holder=r"(?:(?:私|僕|俺|わたし)の|うちの)?{rel}(?:の(?P<value>[ァ-ヺー]{2,10}|[A-Za-z][A-Za-z'’-]*|[\u4e00-\u9fff]{1,4}))?"
    r"(?:さん|ちゃん|くん)?(?:は|も|が)",
    theirs=(
        (
            "job",
            "",
            r"(?:今は|現在は|今)?(?:[^、。]{0,15}?で)?{job}(?:です|をしています|をやっています|として働いて|で)",
        ),
        ("place", "home", r"(?:今は|今)?" + _JA_VALUE + r"に住んで(?:います|いる|る|おります)"),
        ("place", "home", r"(?:今は|今)?" + _JA_VALUE + r"に引っ越し(?:ました|た)"),
        ("employer", "", r"(?:今は|今)?" + _JA_VALUE + r"に(?:勤めて|入社|就職)"),
        ("site", "", r"(?:今は|今)?" + _JA_VALUE + r"で働いて"),
        ("place", "origin", r"(?P<value>[^\s、。でのにはがを出]{1,10})(?:の)?出身"),
    ),
    job_verbs=(
        (
            r"(?:(?P<site>[^\s、。！？はがを]{1,15}?)で)?" + _JA_VALUE + r"を教えて(?:います|いる|おります)",
            "{v}の教師",
            "教師",
        ),
    ),
    their_job_verbs=(
        (
            r"(?:今は|今)?(?:(?P<site>[^\s、。！？はがを]{1,15}?)で)?"
            + _JA_VALUE
            + r"を教えて(?:います|いる|おります)",
            "{v}の教師",
            "教師",
        ),
    ),
    people=(
        r"{rel}の" + _JA_NAME + r"(?:さん|ちゃん|くん)?(?=[はがとをにもの、。]|$)",
        r"{rel}の(?P<value>[\u4e00-\u9fff]{1,4}?)(?:さん|ちゃん|くん)",
        r"(?P<value>[ァ-ヺー]{2,10}|[\u4e00-\u9fff]{1,4}?)(?:さん|ちゃん|くん)?という{rel}",
        r"{rel}の名前は" + _JA_NAME + r"(?:です|だ|。|$)",
    ),
    animals=(
        r"(?:うちの|私の|僕の|我が家の){pet}の" + _JA_NAME,
        r"(?:うちの|私の|僕の|我が家の)?{pet}(?:は|の名前は)"
        + _JA_NAME
        + r"(?:ちゃん|くん)?(?:という名前|って名前|といいます)",
        r"(?P<value>[ァ-ヺー]{2,10}|[ぁ-ゖ]{2,5})(?:ちゃん|くん)?という(?:名前の)?{pet}",
        r"{pet}を(?:一匹|二匹|1匹|2匹|\d匹)?飼って(?:いて|います)[、。]?(?:その子の)?名前は" + _JA_NAME,
        r"(?:うちの|私の|僕の|我が家の)?{pet}の名前は" + _JA_NAME,
        r"{pet}を(?:一匹|二匹|三匹|1匹|2匹|3匹)?飼って(?:います|いる|る|いて|おります)",
        r"(?:うちの|私の|僕の|我が家の){pet}",
    ),
    jobs=words(
        """エンジニア 看護師 教師 先生 医者 医師 弁護士 会計士 デザイナー プログラマー 料理人 シェフ 運転手 記者
        警察官 消防士 パイロット 科学者 研究者 教授 マネージャー 作家 翻訳者 通訳 カメラマン 写真家 芸術家
        音楽家 電気工 大工 農家 公務員 薬剤師 歯医者 獣医 建築家 アナリスト コンサルタント 編集者 俳優 保育士
        介護士 美容師 販売員 店員 秘書 事務員 銀行員 会社員 営業"""
    ),
    not_jobs=words("いい 良い 悪い ダメ"),
    job_before=r"(?:[^\W\d_\u3041-\u3096]{1,8}の)?",
    # "彼女" is "she" as often as "girlfriend": another person, but no relation
    relatives={k: v for k, v in _RELATIVES.items() if k != "彼女"},
    pets={
        **{"犬": "dog", "子犬": "puppy", "ワンちゃん": "dog", "猫": "cat", "子猫": "kitten", "インコ": "budgie"},
        **{"オウム": "parrot", "ウサギ": "rabbit", "うさぎ": "rabbit", "ハムスター": "hamster", "カメ": "tortoise"},
        **{"亀": "tortoise", "金魚": "goldfish", "フェレット": "ferret", "柴犬": "dog", "トイプードル": "dog"},
    },
    org_words=words(
        """会社 株式会社 銀行 病院 大学 学校 高校 中学校 小学校 幼稚園 保育園 研究所 工場 事務所 出版社 役所 商事
        ホテル 店 クリニック"""
    ),
    place_words=words("市 県 区 町 村 都 府 州 国"),
    hypothetical=words("もし たら なら たい かもしれ 夢は"),
    not_values=words(
        """私 僕 俺 家 自宅 会社員 子供 子ども アパート マンション ケーキ プレゼント フード おもちゃ
        オンライン ネット 近所 地元"""
    ),
    name=_JA_NAME,
)

#: The speaker in Japanese, which a question about them names (a question without it asks of the
#: listener: "どこに住んでいますか？").
_ME = r"(?:私|僕|俺|わたし|あたし)"
#: Questions that ask the speaker's own single value (``caim.memory.text.slots.asked``): (attribute,
#: pattern) pairs matched without regard to case in a question sentence. Present tense only: a
#: question about the past does not ask the current value.
ASKS: tuple[tuple[str, str], ...] = (
    ("name", _ME + r"の名前は"),
    ("age", _ME + r"(?:は|って)?(?:今)?(?:何歳|いくつ)"),
    ("location", _ME + r"(?:は|って)?(?:今|いま)?どこに住んで"),
    ("diet", _ME + r"の(?:食生活|食事|ダイエット)|" + _ME + r"(?:は|って)?(?:まだ)?肉を食べ"),
    ("job", _ME + r"の(?:仕事|職業)は"),
    ("employer", _ME + r"(?:は|って)?(?:今|いま)?どこ(?:で働いて|に勤めて)"),
)
