"""`caim memories import-chat`: chat exports (WhatsApp, Telegram, Slack, iMessage) through
langchain-community's chat loaders into memories dated by their messages; run in-process with the
rule-based scripted model (tests/scripts.py)."""

from __future__ import annotations

import json
import os
import sqlite3
import zipfile
from datetime import UTC, datetime

import pytest

from caim.core.scripted import ScriptedChatModel
from tests.scripts import SCRIPT

# An iOS WhatsApp export (_chat.txt) as written: the bracketed time, the left-to-right marks before
# system lines and omitted media, a message continued on a second line.
WHATSAPP = (
    "[14/03/2024, 09:15:02] Ana: \u200eMessages and calls are end-to-end encrypted. No one outside of this chat,"
    " not even WhatsApp, can read or listen to them.\n"
    "[14/03/2024, 09:15:02] Ana: Morning! How was the weekend?\n"
    "[14/03/2024, 09:16:40] Marta: I went hiking in Sintra with my brother Luis\n"
    "[14/03/2024, 09:16:55] Marta: the views were lovely\n"
    "\u200e[14/03/2024, 09:17:30] Ana: \u200eimage omitted\n"
    "[14/03/2024, 09:18:00] Ana: Nice! Send photos\n"
    "[20/03/2024, 21:05:12] Marta: I love the pottery class on Thursdays\n"
    "I am making a bowl for mum\n"
    "[20/03/2024, 21:06:00] Ana: That's great\n"
)
WHATSAPP_THOUGHTS = {
    "I went hiking in Sintra with my brother Luis\nthe views were lovely": "2024-03-14T09:16:40+00:00",
    "I love the pottery class on Thursdays I am making a bowl for mum": "2024-03-20T21:05:12+00:00",
}

# Telegram Desktop's machine-readable export of one chat: formatted text is a list of entities,
# service messages have no sender and no text.
TELEGRAM = {
    "name": "Ana",
    "type": "personal_chat",
    "id": 4242,
    "messages": [
        {"id": 1, "type": "message", "date": "2024-05-02T18:00:00", "from": "Ana", "from_id": "user1",
         "text": "Are you still in Porto?"},
        {"id": 2, "type": "message", "date": "2024-05-02T18:03:10", "from": "Marta", "from_id": "user2",
         "text": ["I moved to ", {"type": "bold", "text": "Lisbon"}, ", my new flat is near the river"]},
        {"id": 3, "type": "service", "date": "2024-05-02T18:04:00", "actor": "Ana", "actor_id": "user1",
         "action": "pin_message", "text": ""},
        {"id": 4, "type": "message", "date": "2024-05-02T18:05:00", "from": "Ana", "from_id": "user1",
         "text": "Lucky you"},
    ],
}  # fmt: skip


@pytest.fixture
def cli(tmp_path, monkeypatch):
    """The app in-process with the scripted provider answering from tests/scripts.py's rules."""
    from typer.testing import CliRunner

    from caim.agent.surfaces.cli import app

    for var in [v for v in os.environ if v.startswith(("CAIM_", "OPENAI_"))]:
        monkeypatch.delenv(var)
    monkeypatch.setenv("CAIM_PROVIDER", "scripted")
    monkeypatch.setenv("CAIM_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setattr(ScriptedChatModel, "from_env", classmethod(lambda cls, role: cls(role=role, script=SCRIPT)))

    def invoke(*args: str):
        return CliRunner().invoke(app, list(args), catch_exceptions=False)

    return invoke


def memories(cli, user: str) -> dict[str, str]:
    """The user's memories: thought -> event time (ISO)."""
    listed = cli("memories", "list", "--user", user, "--json")
    assert listed.exit_code == 0, listed.output
    return {r["thought"]: datetime.fromisoformat(r["event_time"]).isoformat() for r in json.loads(listed.stdout)}


def one_line(result) -> str:
    lines = result.stderr.strip().splitlines()
    assert result.exit_code == 2 and len(lines) == 1 and "Traceback" not in result.output, result.output
    return lines[0]


def test_a_whatsapp_export_becomes_memories_dated_by_its_messages_and_a_second_import_adds_nothing(cli, tmp_path):
    export = tmp_path / "_chat.txt"
    export.write_text(WHATSAPP, encoding="utf-8")
    first = cli("memories", "import-chat", "--format", "whatsapp", str(export), "--user", "marta", "--me", "Marta")
    assert first.exit_code == 0, first.output
    said = " ".join(first.stdout.split())  # as one line, whatever the terminal's width
    # every line of the file accounted for: 6 messages, a continued line, an omitted image and the notice
    assert f"{export}: 9 lines, 6 messages from 2024-03-14 to 2024-03-20 (1 continuing a message; 2 left out:" in said
    assert "2 sessions with a message of Marta: 2 post-thought now, 0 remembered before (skipped): +2 memories" in said
    assert memories(cli, "marta") == WHATSAPP_THOUGHTS
    records = json.loads(cli("memories", "list", "--user", "marta", "--json").stdout)
    # the user's own words, spoken by the user: Ana's "Nice! Send photos" is hers, not a reply of an assistant
    assert [(r["speaker"], [(s["role"], s["speaker"], s["text"]) for s in r["sources"]]) for r in records[:1]] == [
        ("user", [("user", "", "I went hiking in Sintra with my brother Luis\nthe views were lovely")])
    ]

    again = cli("memories", "import-chat", "--format", "whatsapp", str(export), "--user", "marta", "--me", "Marta")
    assert again.exit_code == 0, again.output
    said = " ".join(again.stdout.split())
    assert "0 post-thought now, 2 remembered before (skipped): no memory added, 2 in all for marta." in said
    assert json.loads(cli("memories", "list", "--user", "marta", "--json").stdout) == records


# A group chat: Noor is the user; Sam and Lea are her friends, each speaking for themselves.
GROUP = (
    "[02/06/2024, 18:00:00] Sam: I started a new job in Harrogate, at the hospital\n"
    "[02/06/2024, 18:01:00] Lea: I adopted a cat called Pixel\n"
    "[02/06/2024, 18:02:00] Noor: I teach chemistry at a school in Leeds now\n"
    "[02/06/2024, 18:03:00] Sam: See you there.\n"
    "[02/06/2024, 18:04:00] Lea: I love jazz\n"
)


def test_a_group_chat_keeps_each_friend_as_themselves_never_as_the_user_or_an_assistant(cli, tmp_path):
    export = tmp_path / "_chat.txt"
    export.write_text(GROUP, encoding="utf-8")
    result = cli("memories", "import-chat", "-f", "whatsapp", str(export), "-u", "noor", "--me", "Noor", "--day-first")
    assert result.exit_code == 0, result.output
    records = json.loads(cli("memories", "list", "--user", "noor", "--json").stdout)
    said = {r["thought"]: r["speaker"] for r in records}
    assert said == {
        "I started a new job in Harrogate, at the hospital": "Sam",
        "I adopted a cat called Pixel": "Lea",
        "I teach chemistry at a school in Leeds now": "user",
        "I love jazz": "Lea",
    }  # "See you there." is small talk: nothing
    assert all(s["speaker"] == (r["speaker"] if r["speaker"] != "user" else "") for r in records for s in r["sources"])
    jazz = next(r for r in records if r["thought"] == "I love jazz")
    assert jazz["polarity"] == "like"  # Lea's preference, on Lea's record
    profile = json.loads(cli("memories", "profile", "--user", "noor", "--json").stdout)
    shown = json.dumps(profile)
    assert "Leeds" in shown and not any(w in shown for w in ("Harrogate", "Pixel", "jazz"))


def test_the_gap_decides_where_a_session_ends(cli, tmp_path):
    export = tmp_path / "_chat.txt"
    export.write_text(WHATSAPP, encoding="utf-8")
    args = ("memories", "import-chat", "-f", "whatsapp", str(export), "-u", "marta", "--me", "Marta")
    result = cli(*args, "--gap-hours", "200")  # the two days are one session
    assert result.exit_code == 0, result.output
    assert "1 session with a message of Marta: 1 post-thought now" in " ".join(result.stdout.split())
    assert set(memories(cli, "marta").values()) == set(WHATSAPP_THOUGHTS.values())


def test_an_android_whatsapp_zip_with_month_first_dates(cli, tmp_path):
    export = tmp_path / "WhatsApp Chat with Ana.zip"
    lines = "3/15/24, 9:16 PM - Marta: I'm learning Italian with my neighbour Giulia\n3/15/24, 9:17 PM - Ana: Brava!\n"
    with zipfile.ZipFile(export, "w") as z:
        z.writestr("WhatsApp Chat with Ana.txt", lines)
    result = cli("memories", "import-chat", "-f", "whatsapp", str(export), "-u", "marta", "--me", "Marta")
    assert result.exit_code == 0, result.output
    assert memories(cli, "marta") == {"I'm learning Italian with my neighbour Giulia": "2024-03-15T21:16:00+00:00"}


def test_dates_that_read_both_ways_need_day_first_or_month_first(cli, tmp_path):
    export = tmp_path / "_chat.txt"
    export.write_text("[3/4/24, 10:00:00] Marta: my cat Miso is ill\n[3/4/24, 10:01:00] Ana: Oh no\n")
    args = ("memories", "import-chat", "-f", "whatsapp", str(export), "-u", "marta", "--me", "Marta")
    assert "--day-first or --month-first" in one_line(cli(*args))
    assert cli(*args, "--day-first").exit_code == 0
    assert memories(cli, "marta") == {"my cat Miso is ill": "2024-04-03T10:00:00+00:00"}


def test_the_report_says_what_was_left_out_and_why(cli, tmp_path):
    """A notice without a sender is neither a message nor glued to the one before; a stretch of the
    chat where the user wrote nothing is left out, and the report says so with its count."""
    export = tmp_path / "_chat.txt"
    export.write_text(
        WHATSAPP
        + "[21/03/2024, 08:00:00] Ana added Luis\n"
        + "[22/03/2024, 10:00:00] Luis: hello everyone\n[22/03/2024, 10:01:00] Ana: welcome Luis\n",
        encoding="utf-8",
    )
    result = cli("memories", "import-chat", "-f", "whatsapp", str(export), "-u", "marta", "--me", "Marta")
    assert result.exit_code == 0, result.output
    said = " ".join(result.stdout.split())
    assert "12 lines, 8 messages from 2024-03-14 to 2024-03-22" in said
    assert "1 left out: notices without a sender" in said
    assert "2 messages in 1 session without a message of Marta: left out." in said
    assert "2 sessions with a message of Marta" in said
    records = json.loads(cli("memories", "list", "--user", "marta", "--json").stdout)
    assert not any("added Luis" in s["text"] for r in records for s in r["sources"])


def test_without_me_the_error_lists_the_senders(cli, tmp_path):
    export = tmp_path / "_chat.txt"
    export.write_text(WHATSAPP, encoding="utf-8")
    line = one_line(cli("memories", "import-chat", "--format", "whatsapp", str(export), "--user", "marta"))
    assert "--me" in line and "Ana (3)" in line and "Marta (3)" in line
    wrong = one_line(cli("memories", "import-chat", "-f", "whatsapp", str(export), "-u", "marta", "--me", "Marte"))
    assert "'Marte'" in wrong and "Ana (3)" in wrong
    assert memories(cli, "marta") == {}


def test_a_telegram_export(cli, tmp_path):
    export = tmp_path / "result.json"
    export.write_text(json.dumps(TELEGRAM), encoding="utf-8")
    result = cli("memories", "import-chat", "-f", "telegram", str(export), "-u", "marta", "--me", "Marta")
    assert result.exit_code == 0, result.output
    assert memories(cli, "marta") == {"I moved to Lisbon, my new flat is near the river": "2024-05-02T18:03:10+00:00"}


def test_a_slack_export(cli, tmp_path):
    export = tmp_path / "slack.zip"
    with zipfile.ZipFile(export, "w") as z:
        z.writestr("users.json", json.dumps([{"id": "U01", "name": "marta"}, {"id": "U02", "name": "ana"}]))
        z.writestr(
            "random/2024-06-01.json",
            json.dumps(
                [
                    {"type": "message", "user": "U02", "text": "how is the dog?", "ts": "1717235000.000100"},
                    {"type": "message", "user": "U01", "text": "my dog Bolt turned five today", "ts": "1717236000.0"},
                    {"type": "message", "user": "U02", "text": "happy birthday Bolt!", "ts": "1717236060.000200"},
                ]
            ),
        )
    result = cli("memories", "import-chat", "-f", "slack", str(export), "-u", "marta", "--me", "U01")
    assert result.exit_code == 0, result.output
    assert memories(cli, "marta") == {"my dog Bolt turned five today": "2024-06-01T10:00:00+00:00"}


def test_an_imessage_database(cli, tmp_path):
    db = tmp_path / "chat.db"
    con = sqlite3.connect(db)
    con.executescript(
        "CREATE TABLE handle (ROWID INTEGER PRIMARY KEY, id TEXT);"
        "CREATE TABLE message (ROWID INTEGER PRIMARY KEY, date INTEGER, text TEXT, is_from_me INTEGER,"
        " attributedBody BLOB, handle_id INTEGER);"
        "CREATE TABLE chat_message_join (chat_id INTEGER, message_id INTEGER);"
    )
    since_2001 = (datetime(2024, 7, 1, 12, 0, tzinfo=UTC) - datetime(2001, 1, 1, tzinfo=UTC)).total_seconds()
    con.execute("INSERT INTO handle VALUES (1, '+351900000000')")
    rows = [(1, "Where are you these days?", 0), (2, "I am in Berlin for my new job at Zalando", 1)]
    for rowid, text, mine in rows:
        date = int((since_2001 + 60 * rowid) * 1e9)
        con.execute("INSERT INTO message VALUES (?, ?, ?, ?, NULL, 1)", (rowid, date, text, mine))
        con.execute("INSERT INTO chat_message_join VALUES (7, ?)", (rowid,))
    con.commit()
    con.close()
    result = cli("memories", "import-chat", "-f", "imessage", str(db), "-u", "marta")  # no --me: is_from_me
    assert result.exit_code == 0, result.output
    assert memories(cli, "marta") == {"I am in Berlin for my new job at Zalando": "2024-07-01T12:02:00+00:00"}


@pytest.mark.parametrize(
    "fmt,name,content,needle",
    [
        ("whatsapp", "_chat.txt", "just some notes\nno dates here\n", "no messages found"),
        ("whatsapp", "_chat.txt", b"\xff\xfe\x00binary", "cannot read"),
        ("telegram", "result.json", "{not json", "cannot read"),
        ("telegram", "chat.html.txt", "<html></html>", "Machine-readable JSON"),
        ("slack", "slack.zip", "not a zip", "cannot read"),
        ("imessage", "chat.db", "not a database", "cannot read"),
        ("signal", "signal.json", "anything", "unknown chat format 'signal'"),
        ("whatsapp", "missing.txt", None, "no such file"),
    ],
)
def test_a_bad_export_is_one_line_and_stores_nothing(cli, tmp_path, fmt, name, content, needle):
    export = tmp_path / name
    if isinstance(content, bytes):
        export.write_bytes(content)
    elif content is not None:
        export.write_text(content)
    line = one_line(cli("memories", "import-chat", "-f", fmt, str(export), "-u", "marta", "--me", "Marta"))
    assert line.startswith("caim: ") and needle in line
    assert memories(cli, "marta") == {}


# ---- other assistants' data exports ------------------------------------------------------------------

APRIL_2 = datetime(2024, 4, 2, 10, 0, tzinfo=UTC).timestamp()


def _node(nid, parent, children, role=None, text="", at=None, **message):
    """A node of ChatGPT's message tree; ``role`` None: a node without a message (the root)."""
    msg = None
    if role is not None:
        content = message.pop("content", {"content_type": "text", "parts": [text]})
        msg = {"id": nid, "author": {"role": role, "name": None, "metadata": {}}, "create_time": at,
               "content": content, "status": "finished_successfully", "metadata": message.pop("metadata", {}),
               "recipient": message.pop("recipient", "all")}  # fmt: skip
    return nid, {"id": nid, "message": msg, "parent": parent, "children": children}


def chatgpt_export() -> list[dict]:
    """Two conversations as ChatGPT's conversations.json holds them: a tree per conversation (an edited
    question left a branch), its custom instructions, a hidden system message, a tool call and its
    result, an image sent alone; the second conversation a day later."""
    t = APRIL_2
    trip = dict(
        [
            _node("root", None, ["sys"]),
            _node("sys", "root", ["ctx"], "system", "", None, metadata={"is_visually_hidden_from_conversation": True}),
            _node("ctx", "sys", ["u1", "u1-edit"], "user", at=t,
                  content={"content_type": "user_editable_context", "user_profile": "I am a vegetarian."}),
            _node("u1", "ctx", ["a1"], "user", "I'm planning a trip to Osaka", t + 60),  # edited away
            _node("a1", "u1", [], "assistant", "Osaka is fun!", t + 70),
            _node("u1-edit", "ctx", ["a2"], "user", "I'm planning a trip to Kyoto with my sister Mei in May", t + 90),
            _node("a2", "u1-edit", ["call"], "assistant", "Kyoto in May is lovely. Shall I look up the festivals?",
                  t + 100),
            _node("call", "a2", ["tool"], "assistant", "search('Kyoto May festivals')", t + 110, recipient="browser"),
            _node("tool", "call", ["img"], "tool", "Aoi Matsuri, 15 May", t + 120),
            _node("img", "tool", ["u2"], "user", at=t + 130,
                  content={"content_type": "multimodal_text", "parts": [{"content_type": "image_asset_pointer"}]}),
            _node("u2", "img", ["a3"], "user", "I love the Aoi Matsuri parade", t + 140),
            _node("a3", "u2", [], "assistant", "It is on 15 May: you will see it.", t + 150),
        ]
    )  # fmt: skip
    garden = dict(
        [
            _node("r2", None, ["g1"]),
            _node("g1", "r2", ["g2"], "user", "I started growing tomatoes on my balcony", t + 86_400),
            _node("g2", "g1", [], "assistant", "Tomatoes need a lot of sun.", t + 86_460),
        ]
    )
    return [
        {"title": "Kyoto trip", "create_time": t, "mapping": trip, "current_node": "a3", "id": "c1"},
        {"title": "Balcony garden", "create_time": t + 86_400, "mapping": garden, "current_node": "g2", "id": "c2"},
    ]


CHATGPT_THOUGHTS = {
    "I'm planning a trip to Kyoto with my sister Mei in May": "2024-04-02T10:01:30+00:00",
    "I love the Aoi Matsuri parade": "2024-04-02T10:02:20+00:00",
    "I started growing tomatoes on my balcony": "2024-04-03T10:00:00+00:00",
}


def claude_export() -> list[dict]:
    """Claude's conversations.json: messages in order, content blocks (thinking left out), an attachment."""

    def msg(sender, text, at, *extra):
        return {"uuid": f"{sender}-{at}", "sender": sender, "text": text, "created_at": at, "attachments": [],
                "files": [], "content": [*extra, {"type": "text", "text": text}]}  # fmt: skip

    thinking = {"type": "thinking", "thinking": "The user likes cycling."}
    first = msg("human", "I cycle to work in Utrecht every day", "2024-06-10T07:30:00.000000Z")
    first["attachments"] = [{"file_name": "route.txt", "extracted_content": "Utrecht, 12 km"}]
    return [
        {
            "uuid": "conv-1",
            "name": "Commute",
            "created_at": "2024-06-10T07:30:00.000000Z",
            "chat_messages": [
                first,
                msg("assistant", "That is a healthy commute!", "2024-06-10T07:30:20.000000Z", thinking),
                msg("human", "My bike is a green Gazelle", "2024-06-10T07:31:00.000000Z"),
                msg("assistant", "A classic Dutch bike.", "2024-06-10T07:31:10.000000Z"),
            ],
        }
    ]


CLAUDE_THOUGHTS = {
    "I cycle to work in Utrecht every day": "2024-06-10T07:30:00+00:00",
    "My bike is a green Gazelle": "2024-06-10T07:31:00+00:00",
}


@pytest.mark.parametrize(
    "fmt,export,thoughts,left_out",
    [
        (
            "chatgpt",
            chatgpt_export,
            CHATGPT_THOUGHTS,
            ["2 left out: on branches the conversation left", "3 left out: hidden, system and tool messages",
             "1 left out: custom instructions", "1 left out: without text"],
        ),
        ("claude", claude_export, CLAUDE_THOUGHTS, ["1 left out: hidden, system and tool", "1 left out: attached"]),
    ],
)  # fmt: skip
def test_an_assistants_data_export_becomes_dated_memories_of_the_user_and_a_second_import_adds_nothing(
    cli, tmp_path, fmt, export, thoughts, left_out
):
    zipped = tmp_path / f"{fmt}-export.zip"
    with zipfile.ZipFile(zipped, "w") as z:
        z.writestr("user.json", json.dumps({"id": "user-1"}))
        z.writestr("conversations.json", json.dumps(export()))
    first = cli("memories", "import-chat", "--format", fmt, str(zipped), "--user", "mei")  # no --me: roles say
    assert first.exit_code == 0, first.output
    said = " ".join(first.stdout.split())
    sessions = len(export())  # each conversation one session, whatever the silences in it
    assert f"{sessions} session{'s' if sessions > 1 else ''} with a message of mei: {sessions} post-thought now" in said
    for why in left_out:
        assert why in said, said
    assert memories(cli, "mei") == thoughts
    records = json.loads(cli("memories", "list", "--user", "mei", "--json").stdout)
    assert {r["speaker"] for r in records} == {"user"}  # memories of the user, in the user's words
    for r in records:  # the user's words, said by the user; the assistant's only as the assistant's
        assert next(s["text"] for s in r["sources"] if s["role"] == "user") == r["thought"]
        assert all(s["role"] in ("user", "assistant") for s in r["sources"])
        assert not any(s["text"].startswith(("ChatGPT:", "Claude:")) for s in r["sources"])

    again = cli("memories", "import-chat", "--format", fmt, str(zipped), "--user", "mei")
    assert again.exit_code == 0, again.output
    assert f"0 post-thought now, {sessions} remembered before (skipped): no memory added" in " ".join(
        again.stdout.split()
    )
    assert json.loads(cli("memories", "list", "--user", "mei", "--json").stdout) == records


def test_a_conversations_json_alone_is_read_too(cli, tmp_path):
    export = tmp_path / "conversations.json"
    export.write_text(json.dumps(claude_export()), encoding="utf-8")
    result = cli("memories", "import-chat", "-f", "claude", str(export), "-u", "mei")
    assert result.exit_code == 0, result.output
    assert memories(cli, "mei") == CLAUDE_THOUGHTS


@pytest.mark.parametrize(
    "fmt,content,needle",
    [
        ("chatgpt", lambda: claude_export(), "is not a chatgpt export: ChatGPT's data export"),
        ("claude", lambda: chatgpt_export(), "it looks like chatgpt export: use --format chatgpt"),
        ("chatgpt", lambda: {"messages": []}, "is not a list of conversations"),
        ("claude", lambda: [{"title": "x"}], "is not a claude export"),
    ],
)
def test_another_format_is_a_one_line_error_naming_the_right_one(cli, tmp_path, fmt, content, needle):
    export = tmp_path / "conversations.json"
    export.write_text(json.dumps(content()), encoding="utf-8")
    line = one_line(cli("memories", "import-chat", "-f", fmt, str(export), "-u", "mei"))
    assert needle in line, line
    assert memories(cli, "mei") == {}


def test_a_zip_without_conversations_or_a_whatsapp_text_as_chatgpt_is_one_line(cli, tmp_path):
    zipped = tmp_path / "other.zip"
    with zipfile.ZipFile(zipped, "w") as z:
        z.writestr("result.json", "{}")
    assert "no conversations.json in" in one_line(
        cli("memories", "import-chat", "-f", "chatgpt", str(zipped), "-u", "m")
    )
    text = tmp_path / "_chat.txt"
    text.write_text(WHATSAPP, encoding="utf-8")
    assert "is not JSON" in one_line(cli("memories", "import-chat", "-f", "chatgpt", str(text), "-u", "m"))
