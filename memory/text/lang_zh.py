"""Chinese: written without spaces, so the index takes each run of characters as single characters and
pairs (``caim.memory.text.tokens``), leaving out the single characters of ``STOPWORDS``; and the
code signals' words, matched anywhere in the text. Numbers in dates may be digits or characters
("5月2日", "五月二日"). Detection tells Chinese by its script (``caim.memory.text.lang``). ``SLOTS``:
single-value facts the speaker states of themselves; ``ENTITIES``: the work, places, people and pets
of their life ("我在...工作" names an employer or a place, so only its words tell which: "公司", "市").
"""

from __future__ import annotations

from caim.memory.text.intent_words import HAN_NUMBERS, IntentWords
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

#: Function characters left out as single characters (pairs holding them stay).
STOPWORDS = frozenset(
    "的了是我你他她它们在和与及也都就吗呢吧啊呀哦嗯这那个之其而着过地得把被让给对从向于以为很太还又再才只么什怎哪谁有不一"
)

# Goal-aware recall (``caim.memory.intents``): request cues, closed vocabularies and slot words.
INTENTS = IntentWords(
    code="zh",
    unspaced=True,
    cues={
        "restaurant": ("餐厅", "饭店", "订(?:个|一个)?(?:位|座|桌)", "预订.{0,10}(?:餐|桌|位)", "(?:出去|在外面)吃饭"),
        "travel": ("旅行", "旅游", "度假", "出游", "自驾游"),
        "gift": ("礼物", "送(?:她|他|给).{0,10}(?:什么|东西)"),
        "appointment": ("预约", "挂号", "看(?:牙|医生|病)"),
        "entertainment": ("电影", "音乐会", "演唱会", "话剧", "门票", "演出"),
    },
    vocab={
        "cuisine": {
            "意大利": "italian",
            "日本料理": "japanese",
            "日料": "japanese",
            "中餐": "chinese",
            "墨西哥": "mexican",
            "印度": "indian",
            "泰国": "thai",
            "泰餐": "thai",
            "法国": "french",
            "法餐": "french",
            "希腊": "greek",
            "韩国": "korean",
            "韩餐": "korean",
            "越南": "vietnamese",
            "寿司": "sushi",
            "披萨": "pizza",
        },
        "diet": {"素食": "vegetarian", "吃素": "vegetarian", "纯素": "vegan", "无麸质": "gluten-free", "清真": "halal"},
        "lodging": {
            "酒店": "hotel",
            "宾馆": "hotel",
            "青年旅舍": "hostel",
            "民宿": "guesthouse",
            "公寓": "apartment",
            "露营": "camping",
        },
        "transport": {
            "火车": "train",
            "高铁": "train",
            "飞机": "plane",
            "自驾": "car",
            "开车": "car",
            "大巴": "bus",
            "渡轮": "ferry",
            "自行车": "bike",
        },
        "occasion": {
            "生日": "birthday",
            "纪念日": "anniversary",
            "婚礼": "wedding",
            "圣诞": "christmas",
            "退休": "retirement",
            "毕业": "graduation",
        },
        "provider": {
            "牙医": "dentist",
            "医生": "doctor",
            "理疗": "physiotherapist",
            "理发": "hairdresser",
            "兽医": "vet",
            "眼科": "optician",
            "皮肤科": "dermatologist",
        },
        "time": {"上午": "mornings", "早上": "mornings", "下午": "afternoons", "晚上": "evenings", "周末": "weekends"},
        "genre": {
            "恐怖": "horror",
            "喜剧": "comedy",
            "科幻": "sci-fi",
            "爵士": "jazz",
            "摇滚": "rock",
            "古典": "classical",
            "歌剧": "opera",
            "音乐剧": "musical",
        },
    },
    people=(r"(?P<n>\d{1,2}|两|二|三|四|五|六|七|八|九|十)(?:个|位)?人",),
    numbers={**HAN_NUMBERS, "两": "2"},
    money=r"\d[\d,.]*\s?(?:元|块|欧元|美元)|[¥￥]\s?\d[\d,.]*",
    relatives={
        "姐姐": "sister",
        "妹妹": "sister",
        "哥哥": "brother",
        "弟弟": "brother",
        "妈妈": "mum",
        "母亲": "mother",
        "爸爸": "dad",
        "父亲": "father",
        "妻子": "wife",
        "老婆": "wife",
        "丈夫": "husband",
        "老公": "husband",
        "女朋友": "girlfriend",
        "男朋友": "boyfriend",
        "朋友": "friend",
        "儿子": "son",
        "女儿": "daughter",
        "奶奶": "grandma",
        "外婆": "grandma",
        "爷爷": "grandpa",
        "外公": "grandpa",
        "侄子": "nephew",
        "外甥": "nephew",
        "同事": "colleague",
    },
    mine="我(?:的)?{rel}",
    company="(?:和|跟|与)我?(?:的)?{rel}",
    likes="(?:她|他|我(?:的)?{rel})(?:最近|现在|一直)?(?:很|非常|特别|最)?(?:喜欢|爱|迷上了|热爱|热衷于)(?P<thing>[^，。！？、,.!?]{1,15})",
    ends="(?:和|但|因为|，)",
    outcomes={
        "cancelled": "(?:取消|算了|不用了)",
        "booked": "(?:订好了|预订好了|已预订|预约好了|已预约|买好了|已购买|下单了|已确认|搞定了)",
        "chosen": "(?:就选|我选|我们选|就要这|就订这|听起来不错)",
    },
)

#: Numbers written in characters, for dates and counts.
NUMERALS = {c: i for i, c in enumerate("〇一二三四五六七八九十")} | {"两": 2}
_MONTHS = {str(i): i for i in range(1, 13)} | {
    n: i for i, n in enumerate(words("一 二 三 四 五 六 七 八 九 十 十一 十二"), start=1)
}
WEEKDAYS = {f"{p}{d}": i for p in ("星期", "周", "礼拜") for i, d in enumerate("一二三四五六日")} | {"星期天": 6}
_DAYS = dict(zip("一二三四五六日", DAYS, strict=True))
_UNITS = {
    "周": "week",
    "星期": "week",
    "个星期": "week",
    "礼拜": "week",
    "个礼拜": "week",
    "个月": "month",
    "年": "year",
}

TIME = TimeWords(
    phrases={
        "昨天": "yesterday",
        "昨日": "yesterday",
        "前天": "the day before yesterday",
        "大前天": "3 days ago",
        "今天": "today",
        "今日": "today",
        "今天早上": "this morning",
        "今早": "this morning",
        "今晚": "tonight",
        "今天晚上": "tonight",
        "昨晚": "last night",
        "昨天晚上": "last night",
        "明天": "tomorrow",
        "最近": "recently",
        "近来": "lately",
        "前几天": "a few days ago",
        "前些天": "a few days ago",
        "上周": "last week",
        "上星期": "last week",
        "上个星期": "last week",
        "上礼拜": "last week",
        "上个礼拜": "last week",
        "这周": "this week",
        "本周": "this week",
        "这个星期": "this week",
        "下周": "next week",
        "下个星期": "next week",
        "上个月": "last month",
        "上月": "last month",
        "这个月": "this month",
        "本月": "this month",
        "下个月": "next month",
        "去年": "last year",
        "今年": "this year",
        "明年": "next year",
        "上周末": "last weekend",
        "这个周末": "this weekend",
        "本周末": "this weekend",
        **combine({"上周": "last", "上星期": "last", "上个星期": "last"}, _DAYS, sep=""),
        **combine({"这周": "this", "本周": "this", "下周": "next"}, _DAYS, sep=""),
    },
    ago="{count}{unit}(?:前|以前|之前)",
    counts={c: str(n) for c, n in NUMERALS.items() if n} | {"几": "a few", "好几": "several"},
    units={"天": "day", "日": "day"} | _UNITS,
    months=_MONTHS,
    weekdays=WEEKDAYS,
    dates=(r"(?:{year}年)?{month}月{day}[日号]", r"{year}年{month}月"),
    in_month=(r"{month}月份", r"在{month}月", r"{month}月(?![\d〇一二三四五六七八九十])"),
    markers=("以来", "自从", "当时", "那时候"),
)

SIGNALS = Signals(
    first_person=words("我 我们 咱们 咱"),
    third_person=words("他 她 他们 她们"),
    telling=words(
        """是 有 喜欢 爱 讨厌 想 要 需要 打算 计划 在 去 住 工作 学习 学 玩 养 买 做 叫 结婚 搬 开始 生 参加 总是
        经常 从不 每天 每周 最爱 最喜欢 过敏 会 不能"""
    ),
    reactions=words("对不起 抱歉 很遗憾 真遗憾 太遗憾了 为你高兴 替你高兴 为你骄傲 我不确定"),
    past=PastTense(subjects=words("我 我们 咱们"), markers=words("了 过")),
    past_reference=words(
        """记得 还记得 提醒我 告诉过你 跟你说过 我说过 我提到 我提过 提到过 我分享 你说过 你告诉我 你推荐 你建议
        你提到 我们聊过 我们谈过 我们讨论过 上次 之前 以前 先前 曾经 再次 仍然"""
    ),
    asks_past=words("以前 之前 原来 过去 曾经 从前 原先 当时 那时 以往 早先"),
    when=words("什么时候 何时 哪一年 哪年 几月 哪个月 哪一天 哪天 几号 多久以前 多久前 多长时间以前 几点"),
    aggregate=words("多少 几次 几个 几本 几部 哪些"),
    question_words=words("什么 谁 哪 哪里 哪儿 为什么 怎么 怎样 如何 几 多少 是否 有没有 是不是 咋"),
    question_ends=words("吗 呢 么"),
    greetings=words("你好 您好 嗨 哈喽 哈啰 早上好 早安 下午好 晚上好 谢谢 谢谢你 谢谢您 多谢 感谢 非常感谢 大家好"),
    exclamations=words(
        "哇 太好了 好棒 真棒 太棒了 厉害 不错 真不错 酷 太酷了 哈哈 哈哈哈 好厉害 赞 真好 好开心 太好啦"
    ),
    sign_offs=words("好的 好 好吧 嗯 嗯嗯 对 是的 行 可以 再见 拜拜 晚安 回头见 明天见 下次见 ok 好滴"),
    openers=words("嗯 哦 噢 啊 哈哈 好的 那 那么 对 是的 嗯嗯 谢谢 你好 哇"),
    name_before=words("名叫 叫做 名字是 名字叫 叫"),
    name_after=words("先生 女士 小姐 老师 医生 教授 阿姨 叔叔 同学"),
    self_one="我",
    self_both="我们",
    joins=words("和 跟 与 及 同"),
    quotes="\u201c\u300a\u300c\u300e",
    titles=(("《", "》"), ("「", "」"), ("『", "』")),
    giving=words("推荐 建议 我帮你 提醒你 预订 订好"),
    accepting=words(
        """谢谢 多谢 感谢 好的 好呀 好啊 好主意 不错 就这么办
        我试试 试试看 我会试 我去看看 我去试试 听起来不错 太好了 没问题 嗯嗯"""
    ),
    refusing=words("不用了 不了 不要 算了 不太想 不感兴趣 还是不"),
    claims=words("你提到 你说过 你说 你告诉我 你之前说 你是 你住在 你在 你的"),
    wishes=words("祝你 玩得开心 一路顺风 加油 好运 下次见 回头见 再见 明天见 周末愉快 旅途愉快"),
    dropped=words(
        """刚 刚刚 正在 最近在 一直在 准备 打算 计划 要去 想去 一直想 养了 住了 住在 搬到 搬家 结婚 辞职 换了
        上班 加班 在学 学了 开始 超爱 很爱 爱吃 爱喝 喜欢 讨厌 受不了 害怕 特别怕 很怕 最怕 迷上 拿到 吵架
        每天 一般都 经常 总是"""
    ),
    addressing=words("你 您 你们 要不要"),
    time=TIME,
)

#: Preference cues (``caim.memory.text.polarity``).
POLARITY = PolarityWords(
    likes=words(
        """喜欢 喜歡 爱 愛 热爱 最爱 享受 偏爱 迷上 爱上 超爱 本命 着迷 上瘾 沉迷 爱好 稀罕 离不开 少不了 百吃不厌
        百看不厌 百听不厌 看了好多遍 看过好多遍 重刷 二刷 三刷 在追 铁粉 粉丝 是我的命 我的命 爱吃 爱喝 爱看 爱玩
        爱听 情有独钟 感兴趣 有兴趣 放不下 入坑 安利 值了 超迷 很迷 挺迷 特迷 痴迷 入迷 迷恋"""
    ),
    dislikes=words(
        """讨厌 討厭 受不了 厌恶 恨 受够了 吃不惯 吃不消 看不下去 弃了 讨厌死了 头疼 心累 腻了 烦死了 好烦 很烦 真烦
        烦人 烦透了 怕了 够了 再也不 忍不了 反感 吃不了 怕辣 不感冒 没兴趣 没劲
        不是我的菜 不是我的风格 厌倦 厌烦 腻烦 嫌弃 看不惯 心烦 烦躁 最怕 喝不惯 用不惯 听不惯"""
    ),
    neutral=words("无所谓 無所謂 还行 都可以 随便 无感"),
    praise=(
        *words(
            """好吃 好看 好听 好玩 好喝 绝了 太棒 真棒 很棒 yyds 神作 治愈 太香 真香
            好香 美味 精彩 经典 有意思 有趣 舒服 舒坦 值得 靠谱 通透 解压 好哭 强多了
            好用 给力 赞 爽 过瘾 完美 惊艳 上头 可口 真牛 太牛 很牛 牛逼 让我开心
            让我放松 很放松 最大的爱好 好评 避风港 精神寄托 精神支柱 心灵寄托 不崩溃
            保持理智 撑下去 续命 清空大脑 放空 头脑清醒 快乐源泉 心头好 爱不释手 乐在其中 回味无穷 太爱了 爱死了
            精神食粮 对我胃口 合我胃口"""
        ),
        *(  # "X makes me (very) happy", written without spaces
            a + b + c
            for a in ("让我", "使我", "令我", "能让我")
            for b in ("", "很", "特别", "超", "超级", "非常", "好", "挺", "真的")
            for c in ("开心", "快乐", "幸福", "放松", "平静", "安心", "满足", "解压", "心情好")
        ),
    ),
    scorn=(
        *words(
            """难吃 难看 难听 无聊 闷 太慢 一般般 要命 太热 太甜 太辣 太咸 太贵 太吵 太挤 要死 垃圾 糟糕
            差劲 没意思 太教条
        受气 不好搞 太累 累死 折磨 噩梦 到吐 不靠谱 失望 凑合 真不行"""
        ),
        *(  # "X drives me mad", written without spaces
            a + b + c
            for a in ("让我", "使我", "令我")
            for b in ("", "很", "特别", "超", "超级", "非常", "好", "挺", "真的")
            for c in ("抓狂", "崩溃", "头疼", "头大", "心累", "焦虑", "烦躁", "反胃")
        ),
    ),
    reactions=words("你 您 恭喜 哇 羡慕"),
    events=words("聚会 派对 旅行 旅游 周末 婚礼 生日 消息 主意 建议"),
    negations=words("不 没 沒 不太 不再 别 没有 不怎么"),
    blocks=words(
        """郁闷 解闷 可爱 可愛 爱人 爱你 恋爱 亲爱 麻烦 烦恼 不客气 太好了 真好 好的 好吧 恨不得 爱心 爱情 不行了 不错吧
        行不行 舒服吗 好看吗 好吃吗 不开心 开心吗 开心就好 开心点"""
    ),
    selves=words("我 我们 咱 咱们 俺"),
    possessives=words("的"),
    holders=words(
        """他 她 它 他们 她们 妈 爸 老婆 老公 儿子 女儿 孩子 宝宝 朋友 同事 室友 男朋友 女朋友 猫 狗 哥 姐 弟 妹 奶奶
        爷爷 姥姥 姥爷 老板 闺女 媳妇 爱人 对象"""
    ),
    others=words("你 您 你们 大家 别人"),
    fillers=words("真的 真 太 很 超 好 特别 非常 也 都 还 挺 蛮 最 就 可 巨 贼 还是 确实 实在 是 了 啊 呀"),
    reasons=words("因为 因為 由于 由於"),
    reason_openers=words("太 很 总是"),
)

LANGUAGE = Language(code="zh", stopwords=STOPWORDS, unspaced=True, signals=SIGNALS)

SLOTS = SlotWords(
    patterns=(
        ("name", r"我叫{v}"),
        ("name", r"我的名字(?:是|叫){v}"),
        ("age", r"(?:我|今年)(?:今年|现在)?{n}岁"),
        ("location", r"我(?:们)?(?:现在|目前)?住在{v}"),
        ("location", r"我(?:们)?(?:去年|今年|前年|上个月|上周|最近)?(?:刚|已经)?搬(?:家)?到(?:了)?{v}"),
        ("job", r"我(?:现在)?(?:的工作|的职业)是{v}"),
        ("job", r"我现在是(?:一名|一个)?{v}"),
        ("employer", r"我(?:现在)?在{v}(?:工作|上班)"),
    ),
    values=(
        ("diet", "vegan", r"我(?:现在)?(?:是|成了)?(?:纯素|严格素食)"),
        ("diet", "vegetarian", r"我(?:现在)?(?:是素食者|吃素|不吃肉|成了素食者)"),
        ("diet", "omnivore", r"我(?:现在)?(?:又|重新)?(?:开始)?吃肉"),
    ),
    stops=("了", "的", "工作", "上班", "生活", "啦", "呢", "吧", "已经", "现在"),
    not_values=("一个", "我", "这", "那"),
)

#: A name after "called" or a relation: Latin letters, or one to four characters up to a function character.
_ZH_NAME = (
    r"(?P<value>[A-Za-z][A-Za-z'’-]*|[^\W\d_A-Za-z的了是在和跟也很都今现去来住叫有最]"
    r"[^\W\d_的了是在和跟也很都今现去来住叫有最，]{0,3}?(?=[^\w]|$|[的了是在和跟也很都今现去来住有最]))"
)
_ME = r"我(?:现在|目前)?"
_AS = r"(?:一名|一个|一位|个|名)?"
#: A full name right after a relation ("我姐姐李娜住在上海"): a common surname and one or two characters, before
#: a verb that tells about them.
_NAMED = (
    r"[李王张刘陈杨黄赵吴周徐孙马朱胡郭何高林罗郑梁谢宋唐许韩冯邓曹彭曾肖田董袁潘蒋蔡余杜叶程苏魏吕丁任沈姚卢姜崔钟"
    r"谭陆汪范金石廖贾夏韦方白邹孟熊秦邱江尹薛段雷侯龙史陶黎贺顾毛郝龚邵万钱严武戴莫孔汤]"
    r"[^\W\d_是在住也现目教搬的今很和最]{1,2}?(?=[是在住也很和跟今最，。！]|$)"
)
ENTITIES = EntityWords(
    mine=(
        ("job", "", _ME + r"(?:是|当|做)(?:了)?" + _AS + "{job}"),
        ("employer", "", _ME + r"是(?P<value>[^\W\d_的]{1,10})的[^\W\d_的]{0,6}?{jobs}"),
        ("job", "", _ME + r"是[^\W\d_的]{1,10}的{job}"),
        ("job", "", _ME + r"在[^，。！？]{1,12}?(?:当|做|担任)" + _AS + "{job}"),
        ("site", "", _ME + r"在(?P<value>[^\W\d_，。在]{1,12}?)(?:当|做|担任)" + _AS + "{jobs}"),
        ("place", "origin", r"我来自{v}"),
        ("place", "origin", r"我是(?P<value>[^\W\d_一个]{2,4}?)人(?![^\W\d_])"),
        ("place", "origin", r"我(?:是)?在(?P<value>[^\W\d_，。]{1,8}?)(?:长大|出生)"),
        (
            "place",
            "travel",
            r"我(?:们)?(?:上周|下周|最近|刚|明天|今年|去年|下个月|上个月|这周末)?(?:去了|去过|要去|会去|去|到)"
            r"(?P<value>[^\W\d_，。]{1,8}?)(?:旅游|旅行|出差|度假|玩)",
        ),
        ("place", "travel", r"我(?:们)?刚从(?P<value>[^\W\d_，。]{1,8}?)回来"),
    ),
    holder=r"我(?:的)?{adj}{rel}(?:(?P<value>[小阿][^\W\d_是在住也现目教搬的今很和最]{1,2}|" + _NAMED + r"))?",
    theirs=(
        ("job", "", r"(?:现在|目前)?(?:也)?(?:是|当|做)(?:了)?" + _AS + "{job}"),
        ("place", "home", r"(?:现在|目前)?(?:也)?住在{v}"),
        ("place", "home", r"(?:刚|已经)?搬(?:家)?到(?:了)?{v}"),
        ("site", "", r"(?:现在|目前)?(?:也)?在{v}(?:工作|上班)"),
        ("place", "origin", r"来自{v}"),
    ),
    job_verbs=((_ME + r"(?:在(?P<site>[^，。！？教]{1,12}?))?教{v}", "{v}老师", "老师"),),
    their_job_verbs=((r"(?:现在|目前)?(?:在(?P<site>[^，。！？教]{1,12}?))?教{v}", "{v}老师", "老师"),),
    people=(
        r"我(?:的)?{adj}{rel}(?:叫|名叫|叫做|的名字是|的名字叫|名字叫){name}",
        r"我(?:的)?{adj}{rel}(?P<value>[小阿][^\W\d_是在住也现目教搬的今很和最]{1,2}?)"
        r"(?=[^\w]|$|[是在住也很和跟今最])",
        r"我(?:的)?{adj}{rel}(?P<value>" + _NAMED + ")",
    ),
    animals=(
        r"我(?:们)?(?:家)?(?:的|有|养了|养的|养)?[^，。！？]{0,4}?{pet}(?:，)?(?:叫|名叫|叫做|名字叫){name}",
        r"我(?:们)?(?:家)?的{pet}(?P<value>[小阿][^\W\d_的了是在和很也]{1,2}?)(?=[^\w]|$|[是在很也和的了])",
        r"我(?:们)?(?:家)?(?:有|养了|养)(?:一只|一条|两只|三只|只|条|一匹)?{pet}",
        r"我(?:们)?(?:家)?的{pet}",
    ),
    jobs=words(
        """工程师 护士 老师 教师 医生 律师 会计 会计师 设计师 程序员 厨师 司机 记者 警察 消防员 飞行员 科学家
        研究员 教授 经理 作家 翻译 摄影师 艺术家 音乐家 电工 木匠 农民 军人 图书管理员 心理咨询师 治疗师
        服务员 收银员 秘书 助理 理发师 药剂师 牙医 兽医 建筑师 分析师 顾问 编辑 演员 导演 公务员 快递员 外卖员
        保安 保姆 销售 产品经理 主播 护工"""
    ),
    not_jobs=words("好 坏 很 差 不 没"),
    adjectives=words("最好的 好 亲爱的"),
    being=r"我(?:现在)?是",
    relatives={
        **INTENTS.relatives,
        **{"姐": "sister", "妹": "sister", "哥": "brother", "弟": "brother", "表姐": "cousin", "表妹": "cousin"},
        **{"表哥": "cousin", "表弟": "cousin", "堂姐": "cousin", "堂妹": "cousin", "堂哥": "cousin"},
        **{"堂弟": "cousin", "男友": "boyfriend", "女友": "girlfriend", "室友": "roommate", "邻居": "neighbour"},
        **{"老板": "boss", "同学": "classmate", "闺蜜": "friend", "好朋友": "friend", "未婚妻": "fiancée"},
        **{"未婚夫": "fiancé", "孙子": "grandson", "孙女": "granddaughter", "姑姑": "aunt", "阿姨": "aunt"},
        **{"舅舅": "uncle", "叔叔": "uncle"},
    },
    pets={
        **{"狗": "dog", "狗狗": "dog", "小狗": "dog", "猫": "cat", "猫咪": "cat", "小猫": "cat"},
        **{"鹦鹉": "parrot", "兔子": "rabbit", "仓鼠": "hamster", "乌龟": "tortoise", "金鱼": "goldfish"},
        **{"小鸟": "bird", "龙猫": "chinchilla", "柯基": "dog", "金毛": "dog", "柴犬": "dog", "泰迪": "dog"},
    },
    sites="在",
    org_words=words(
        """公司 集团 银行 医院 大学 学院 学校 中学 小学 幼儿园 研究所 研究院 工厂 厂 事务所 出版社 报社 电视台
        餐厅 酒店 局 诊所 工作室"""
    ),
    place_words=words("市 省 区 县 镇 村 州 国"),
    hypothetical=words("如果 要是 假如 希望 梦想 想去 想搬 想当 想做 想成为 想要 打算 可能 也许 或许 要是"),
    stops=words("长大 出生 工作 上班"),
    not_values=words("一 个 这 那 哪 什么 我 他 她 孩子 学生 家 别人 网上 线上 网络 外面 附近 本地 当地"),
    name=_ZH_NAME,
)

#: Questions that ask the speaker's own single value (``caim.memory.text.slots.asked``): (attribute,
#: pattern) pairs matched without regard to case in a question sentence. Present tense only: a
#: question about the past does not ask the current value.
ASKS: tuple[tuple[str, str], ...] = (
    ("name", r"我叫什么|我的名字(?:是|叫)?什么"),
    ("age", r"我(?:今年|现在)?(?:几|多少)岁|我(?:今年|现在)?多大"),
    ("location", r"我(?:现在|目前)?住在?(?:哪|什么地方)|我(?:现在|目前)?在(?:哪|什么地方)(?:里|儿)?住"),
    ("diet", r"我(?:的)?饮食|我(?:还)?(?:吃素|吃肉|是素食者?)(?:吗|嘛)"),
    ("job", r"我(?:是)?(?:做什么|干什么)(?:工作|的)|我的(?:职业|工作)是什么"),
    (
        "employer",
        r"我(?:现在|目前)?在(?:哪|什么公司|哪家公司)(?:里|儿)?(?:工作|上班)|我(?:为|给)(?:哪家公司|谁)工作",
    ),
)
