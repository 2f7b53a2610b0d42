"""Japanese: written without spaces, indexed like Chinese as single characters and pairs, leaving out
single hiragana (particles and endings, ``STOPWORDS``); and the code signals' words, matched
anywhere in the text. Japanese drops the subject, so a clause ending in a past form tells a past
action without one. Detection tells Japanese from Chinese by its kana (``caim.memory.text.lang``).
"""

from __future__ import annotations

from caim.memory.text.lang_zh import NUMERALS
from caim.memory.text.tables import (
    DAYS,
    Language,
    PastTense,
    PolarityWords,
    Signals,
    SlotWords,
    TimeWords,
    combine,
    words,
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
    wishes=words("楽しんで 頑張って がんばって お大事に 良い一日 いい一日 気をつけて またね おやすみ"),
    time=TIME,
)

#: Preference cues (``caim.memory.text.polarity``).
POLARITY = PolarityWords(
    likes=words(
        """好き 大好き 気に入 愛して ハマって はまって ハマり ハマる 推し 夢中 好物 お気に入り 欠かせない 欠かせません
        応援しています 応援してる 応援して ファン 何度読んでも 何度見ても 何回見ても 読み直して 見返して 趣味 やみつき
        病みつき 目がない 好み 興味がある 興味あります 生きがい ストレス解消 リフレッシュ"""
    ),
    dislikes=words(
        """嫌い 大嫌い 苦手 嫌だ いやだ 耐えられない 嫌がる 嫌がって うんざり 飽きた
        面倒 めんどくさい 面倒くさい めんどう 我慢できない 勘弁 こりごり 二度と"""
    ),
    neutral=words("どちらでもいい どっちでもいい 普通 まあまあ"),
    praise=words(
        """最高 面白い おもしろい 楽しい 美味しい おいしい うまい 旨い めっちゃよかった すごくよかった すごく良かった
        とてもよかった とても良かった めっちゃ良かった 素敵 素晴らしい 感動 癒される 癒し 落ち着く 最強 絶品 名作 傑作
        気持ちいい 心地いい 幸せ ほっとする リラックス 面白かった おもしろかった 美味しかった おいしかった 泣けた"""
    ),
    scorn=words(
        "つまらない つまらなかった まずい まずかった 退屈 最悪 ひどい うるさい しんどい だるい 微妙 イマイチ いまいち"
    ),
    reactions=words("あなた 君 きみ すごい おめでとう いいね さすが"),
    events=words("パーティー 旅行 週末 結婚式 誕生日 飲み会 ニュース アイデア"),
    negations=words("じゃない ではない ではありません じゃありません じゃなく ない なかった くない"),
    blocks=words(
        """楽しみ 楽しんで よかったね 良かったね 無理しないで 無理しない 好きにして 好きなだけ 好きな時 好きなように
        おいしそう 美味しそう 楽しそう 面白そう"""
    ),
    selves=words("私 わたし 僕 ぼく 俺 おれ あたし 自分"),
    holders=words(
        """彼 彼女 妹 姉 兄 弟 母 父 息子 娘 夫 妻 旦那 嫁 友達 同僚 猫 犬 子ども 子供 さん ちゃん くん 祖母 祖父 上司
        部長 課長"""
    ),
    others=words("あなた 君 きみ お前"),
    fillers=words("めっちゃ すごく とても 本当に ほんとに 本当 ほんと 超 まじ マジ 一番 やっぱり やっぱ は が も"),
    reasons_before=words("ので から"),
)

LANGUAGE = Language(code="ja", stopwords=STOPWORDS, unspaced=True, signals=SIGNALS)

SLOTS = SlotWords(
    patterns=(
        ("name", r"(?:私|僕|俺)の名前は{v}です"),
        ("name", r"{v}と(?:申します|いいます|言います)"),
        ("age", r"{n}歳(?:です|になりました|になった|だ)"),
        ("location", r"{v}に(?:住んで(?:います|いる|る|おります)|引っ越(?:しました|した|してきました))"),
        ("job", r"{v}として働いて(?:います|いる|る)"),
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
    others=r"(?:妹|姉|兄|弟|母|父|夫|妻|彼女|彼|友達|息子|娘|家族|同僚)(?:さん|ちゃん|くん)?(?:は|が|も)",
)
