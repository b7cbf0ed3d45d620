"""The dashboard in headless Chromium (issue 33): sign-in by one-time link and by Discord's and Slack's
OAuth (loopback fakes), channel settings shared with the console's `/quiz config`, a pack upload with its
field errors, a report resolved, My progress, another space's id, and a form without its token."""

from __future__ import annotations

import json
import re
from collections.abc import Sequence

import pytest
from playwright.sync_api import Browser, Page, expect

from bot.kernel.values import Actor, ChannelConfig, ChannelRef
from bot.settings import ConfigChange
from tests.browser.conftest import Dashboard, docs_shot

pytestmark = pytest.mark.slow

ADMIN = Actor("owner", is_admin=True)


def sign_in(page: Page, dash: Dashboard) -> None:
    page.goto(dash.link())
    page.get_by_role("button", name="Sign in").click()
    expect(page.get_by_role("heading", name="Overview")).to_be_visible()


def add_channel(dash: Dashboard, ref: ChannelRef) -> None:
    dash.run(dash.features.channels.configure(ADMIN, ref, ConfigChange()))


def test_a_one_time_link_signs_in_once_with_safe_cookies_and_a_strict_csp(
    dash: Dashboard, page: Page, browser: Browser
):
    link = dash.link()
    opened = page.goto(link)
    assert opened is not None
    csp = opened.headers["content-security-policy"]
    assert "script-src 'none'" in csp and "default-src 'none'" in csp and "frame-ancestors 'none'" in csp
    with page.expect_response(lambda r: r.url.endswith("/login/link")) as answer:
        page.get_by_role("button", name="Sign in").click()
    cookie = answer.value.all_headers()["set-cookie"]
    assert cookie.startswith("studybot_session=") and "HttpOnly" in cookie and "SameSite=Lax" in cookie
    assert "Secure" not in cookie  # plain http on loopback; behind https it is Secure (test_web_security)
    expect(page.get_by_role("heading", name="Overview")).to_be_visible()
    expect(page.get_by_role("row", name=re.compile("terminal"))).to_contain_text("UTC")
    expect(page.get_by_text("Signed in as you")).to_be_visible()
    docs_shot(page, "overview")
    other = browser.new_context()  # the same link again, in another browser: used up
    again = other.new_page()
    again.goto(link)
    with again.expect_response(lambda r: r.url.endswith("/login/link")) as refused:
        again.get_by_role("button", name="Sign in").click()
    assert refused.value.status == 403
    expect(again.get_by_role("heading", name="Link used or expired")).to_be_visible()
    other.close()


def test_login_with_discord_against_a_loopback_fake(dash: Dashboard, page: Page):
    add_channel(dash, ChannelRef("discord", "111", "c1"))
    add_channel(dash, ChannelRef("discord", "222", "c2"))
    dash.oauth.discord_guilds = [
        {"id": "111", "name": "Torch Club", "owner": False, "permissions": str(1 << 5)},  # Manage Server
        {"id": "222", "name": "Readers", "owner": False, "permissions": "0"},
        {"id": "333", "name": "No bot here", "owner": True, "permissions": "0"},
    ]
    page.goto(dash.url + "/login")
    docs_shot(page, "sign-in")
    page.get_by_role("link", name="Login with Discord").click()
    expect(page.get_by_role("heading", name="Your servers and workspaces")).to_be_visible()
    expect(page.get_by_role("link", name="Torch Club")).to_be_visible()
    expect(page.get_by_text("No bot here")).to_have_count(0)  # the bot serves only the first two
    assert dash.oauth.calls[:2] == ["authorize discord identify guilds", "discord token"]
    page.get_by_role("link", name="Torch Club").click()
    expect(page.get_by_role("link", name="Packs")).to_be_visible()  # Manage Server: an admin here
    page.goto(dash.url + "/s/discord/222")
    expect(page.get_by_role("heading", name="Overview")).to_be_visible()
    expect(page.get_by_role("link", name="Packs")).to_have_count(0)  # a member only
    assert page.goto(dash.url + "/s/discord/222/packs").status == 403
    dash.run(dash.features.teams.create(ChannelRef("discord", "222", "c2"), "someone", "Night Owls"))
    page.goto(dash.url + "/s/discord/222/leaderboards")
    expect(page.get_by_role("button", name="Join", exact=True)).to_be_visible()  # a member joins teams here
    expect(page.get_by_role("heading", name="Manage teams")).to_have_count(0)  # but manages none
    token = page.locator("input[name=csrf]").first.get_attribute("value")
    forged = page.request.post(
        dash.url + "/s/discord/222/teams", form={"csrf": token or "", "action": "remove", "name": "Night Owls"}
    )
    assert forged.status == 400 and "Only members who can manage this server" in forged.text()
    teams, _mine = dash.run(dash.features.teams.roster("discord", "222", "someone"))
    assert [t.name for t in teams] == ["Night Owls"]  # the core refused it: still there


def test_a_page_asked_for_before_signing_in_is_where_the_sign_in_ends(dash: Dashboard, page: Page):
    add_channel(dash, ChannelRef("discord", "111", "c1"))
    dash.oauth.discord_guilds = [{"id": "111", "name": "Torch Club", "owner": False, "permissions": "0"}]
    page.goto(dash.url + "/s/discord/111/past?page=2")  # a link from the chat, say, while signed out
    expect(page.get_by_role("heading", name="Sign in to studybot")).to_be_visible()
    page.get_by_role("link", name="Login with Discord").click()
    expect(page.get_by_role("heading", name="Past questions", level=1)).to_be_visible()
    assert page.url == dash.url + "/s/discord/111/past?page=2"
    page.get_by_role("button", name="Sign out").click()
    page.goto(dash.url + "/s/discord/999/past")  # a server this member is not in: their home instead
    page.get_by_role("link", name="Login with Discord").click()
    expect(page.get_by_role("heading", name="Overview")).to_be_visible()
    assert page.url == dash.url + "/s/discord/111"
    page.get_by_role("button", name="Sign out").click()
    page.goto(dash.url + "/login?next=//evil.example/s/discord/111")  # never another site
    page.get_by_role("link", name="Login with Discord").click()
    assert page.url == dash.url + "/s/discord/111"
    page.get_by_role("button", name="Sign out").click()
    many = [str(500 + n) for n in range(50)]  # more long-named servers than a session cookie holds
    for guild in many:
        add_channel(dash, ChannelRef("discord", guild, f"c{guild}"))
    dash.oauth.discord_guilds = [
        {"id": g, "name": f"Server {g} " + "x" * 80, "owner": True, "permissions": "0"} for g in many
    ]
    page.goto(dash.url + f"/s/discord/{many[-1]}/past")  # the last of them: the first a cookie drops
    page.get_by_role("link", name="Login with Discord").click()
    expect(page.get_by_role("heading", name="Past questions", level=1)).to_be_visible()
    assert page.url == dash.url + f"/s/discord/{many[-1]}/past"


class NamedChannels:
    """The channel-name port as a platform adapter offers it (the adapters' own tests check theirs)."""

    name = "discord"

    async def channel_names(self, space_id: str, channel_ids: Sequence[str]) -> dict[str, str]:
        return {cid: "daily-pytorch" for cid in channel_ids if (space_id, cid) == ("111", "c1")}


def test_the_pages_name_channels_where_the_platform_knows_their_names(dash: Dashboard, page: Page):
    add_channel(dash, ChannelRef("discord", "111", "c1"))
    add_channel(dash, ChannelRef("discord", "111", "c9"))  # one the platform cannot name: its id
    dash.features.context.platforms.add(NamedChannels())  # type: ignore[arg-type]
    dash.oauth.discord_guilds = [{"id": "111", "name": "Torch Club", "owner": True, "permissions": "0"}]
    page.goto(dash.url + "/login")
    page.get_by_role("link", name="Login with Discord").click()
    page.goto(dash.url + "/s/discord/111")
    expect(page.get_by_role("link", name="c9", exact=True)).to_be_visible()
    page.get_by_role("link", name="#daily-pytorch").click()
    expect(page.get_by_role("heading", name="Channel #daily-pytorch")).to_be_visible()
    page.get_by_role("link", name="My progress").click()
    expect(page.get_by_label("Today's question from").locator("option")).to_have_text(["#daily-pytorch", "c9"])


def test_sign_in_with_slack_against_a_loopback_fake(dash: Dashboard, page: Page):
    add_channel(dash, ChannelRef("slack", "T1", "C1"))
    dash.oauth.slack_user = {
        "https://slack.com/user_id": "U1",
        "https://slack.com/team_id": "T1",
        "https://slack.com/team_name": "Acme",
        "name": "Bea",
    }

    class SlackAdmins:  # the Slack platform's admin rule (adapters/slack: users.info), as a test double
        name = "slack"

        async def is_space_admin(self, space_id: str, user_id: str) -> bool:
            return (space_id, user_id) == ("T1", "U1")

    dash.features.context.platforms.add(SlackAdmins())  # type: ignore[arg-type]
    page.goto(dash.url + "/login")
    page.get_by_role("link", name="Sign in with Slack").click()
    expect(page.get_by_role("heading", name="Overview")).to_be_visible()
    expect(page.get_by_text("Signed in as Bea")).to_be_visible()
    expect(
        page.get_by_role("navigation", name="Acme").get_by_role("link", name="Reports and suggestions")
    ).to_be_visible()
    assert "slack token" in dash.oauth.calls


def test_a_channel_time_changed_here_shows_in_the_consoles_config_show_and_back(dash: Dashboard, page: Page):
    sign_in(page, dash)
    page.get_by_role("link", name="terminal").click()
    page.get_by_label("time", exact=True).fill("25:00")
    page.get_by_role("button", name="Save").click()
    expect(page.get_by_text("'25:00' is not a time: use 24-hour HH:MM")).to_be_visible()  # as /quiz config says
    assert "time 09:00" in dash.console_says("/quiz config show")  # nothing saved
    page.get_by_label("time", exact=True).fill("10:30")
    page.get_by_role("button", name="Save").click()
    expect(page.get_by_role("status")).to_have_text("Saved: time 10:30.")  # what changed, not every setting
    docs_shot(page, "channel-settings")
    assert "time 10:30" in dash.console_says("/quiz config show")
    dash.console_says("/quiz config tz Europe/Berlin")
    page.reload()  # the save redirected to the page: a reload sends nothing again, and says it once only
    expect(page.get_by_role("status")).to_have_count(0)
    expect(page.get_by_label("tz", exact=True)).to_have_value("Europe/Berlin")


def test_an_admin_posts_and_reveals_from_the_channel_page_as_the_chat_commands_do(dash: Dashboard, page: Page):
    sign_in(page, dash)
    page.get_by_role("link", name="terminal").click()
    page.get_by_role("button", name="Post today's question now").click()  # the console posted it at start
    expect(page.get_by_role("alert")).to_contain_text("already")
    page.get_by_role("button", name="Reveal the open question now").click()
    expect(page.get_by_role("status")).to_have_text(
        "Revealed the channel's open question: its answer and explanation are in the channel."
    )
    assert "== Reveal #" in dash.out.getvalue()  # the channel (the console) got the reveal
    page.get_by_role("button", name="Reveal the open question now").click()
    expect(page.get_by_role("alert")).to_be_visible()  # nothing open now: said, nothing done
    assert dash.out.getvalue().count("== Reveal #") == 1


BROKEN = """questions:
  - id: q1
    topic: lore
    difficulty: easy
    prompt: What is our mascot called?
    choices: [Ada, Bob, Cy, Dee]
    explanation: The team named it Ada.
    reference: https://example.com/mascot
"""


def test_a_broken_pack_shows_its_field_error_then_imports_once_fixed(dash: Dashboard, page: Page, tmp_path):
    sign_in(page, dash)
    page.get_by_role("link", name="Packs").click()
    broken = tmp_path / "team.yaml"
    broken.write_text(BROKEN)
    page.get_by_label("File (.yaml, .yml or .csv)").set_input_files(str(broken))
    page.get_by_role("button", name="Upload").click()
    problem = page.get_by_role("table", name="Problems in the file").get_by_role("row", name=re.compile("question q1"))
    expect(problem).to_contain_text("answer")
    expect(problem).to_contain_text("Field required")
    expect(page.get_by_role("link", name="team")).to_have_count(0)  # nothing imported
    docs_shot(page, "packs-upload-errors")
    broken.write_text(BROKEN.replace("    explanation:", "    answer: A\n    explanation:"))
    page.get_by_label("File (.yaml, .yml or .csv)").set_input_files(str(broken))
    page.get_by_role("button", name="Upload").click()
    expect(page.get_by_role("status")).to_contain_text("Imported pack team: 1 question.")
    page.reload()  # the upload redirected to the packs: a reload imports nothing again
    expect(page.get_by_role("status")).to_have_count(0)
    page.get_by_role("link", name="team", exact=True).click()
    expect(page.get_by_text("What is our mascot called?")).to_be_visible()
    page.get_by_label("terminal").check()
    page.get_by_role("button", name="Save").click()
    expect(page.get_by_role("status")).to_contain_text("terminal now draws from pytorch, team")
    docs_shot(page, "pack-preview")
    assert "packs pytorch,team" in dash.console_says("/quiz config show")
    page.get_by_role("link", name="team/q1").click()  # the question's own page: its answer for the admin
    expect(page.get_by_role("heading", name="Question team/q1")).to_be_visible()
    expect(page.get_by_role("listitem").filter(has_text="(right)")).to_have_count(1)
    expect(page.get_by_role("link", name="team", exact=True)).to_have_attribute("href", "/s/console/local/packs/team")
    with page.expect_download() as download:
        page.goto(dash.url + "/s/console/local/packs")
        page.get_by_role("link", name="YAML").click()
    assert "What is our mascot called?" in open(download.value.path()).read()


def test_an_admin_resolves_a_report(dash: Dashboard, page: Page):
    dash.console_says("/quiz as ann")
    assert "is in the admins' queue" in dash.console_says("/quiz report typo the prompt has a typo")
    dash.console_says("/quiz as you")
    sign_in(page, dash)
    page.get_by_role("link", name="1 open report and 0 suggestions waiting").click()  # the overview's count
    expect(page.get_by_role("heading", name=re.compile(r"Report #1:"))).to_be_visible()
    expect(page.get_by_text("the prompt has a typo")).to_be_visible()
    docs_shot(page, "reports-and-suggestions")
    qid = page.get_by_role("heading", name=re.compile(r"Report #1:")).get_by_role("link").inner_text()
    page.get_by_label("Resolve with").select_option("hold")
    page.get_by_role("button", name="Resolve #1").click()
    expect(page.get_by_role("status")).to_contain_text("1 open report(s) on question")
    expect(page.get_by_text("No open reports.")).to_be_visible()
    page.reload()  # the form redirected to the queues: a reload resolves nothing again
    expect(page.get_by_role("status")).to_have_count(0)
    assert "Reports: none open" in dash.console_says("/quiz admin reports")
    page.get_by_role("link", name="Overview").click()
    expect(page.get_by_text("Nothing waits for you: no open reports, no suggestions to review")).to_be_visible()
    page.goto(f"{dash.url}/s/console/local/questions/{qid}")  # its page says it is held
    expect(page.get_by_text("Held here: the daily question, practice and reviews skip it")).to_be_visible()


def test_a_reported_question_has_its_page_and_its_answer_waits_for_the_reveal(dash: Dashboard, page: Page):
    dash.console_says("/quiz as ann")
    dash.console_says("/quiz answer B")
    dash.console_says("/quiz report wrong B is right")  # today's daily question, still open
    dash.console_says("/quiz as you")
    sign_in(page, dash)
    page.goto(dash.url + "/s/console/local/queues")
    page.get_by_role("heading", name=re.compile(r"Report #1:")).get_by_role("link").click()
    heading = page.get_by_role("heading", level=1)
    expect(heading).to_have_text(re.compile(r"^Question [a-z]+-\d$"))
    qid = heading.inner_text().removeprefix("Question ")
    question = next(q for q in dash.features.context.bank.questions if q.id == qid)
    expect(page.get_by_text(question.prompt)).to_be_visible()
    expect(page.get_by_role("status")).to_contain_text("Open in a channel now")
    expect(page.get_by_text("(right)")).to_have_count(0)  # nothing of its answer or topic before the reveal
    expect(page.get_by_text(re.compile(r"(Tensors|Autograd|nn.Module)"))).to_have_count(0)
    expect(page.get_by_text(question.explanation)).to_have_count(0)
    expect(page.get_by_text("1 open: resolve them in Reports and suggestions")).to_be_visible()
    expect(page.get_by_text("Held here")).to_have_count(0)  # one report does not hold it

    assert "Reveal" in dash.console_says("/quiz config reveal")
    page.reload()
    right = page.get_by_role("listitem").filter(has_text="(right)")
    expect(right).to_have_count(1)
    expect(right).to_contain_text(question.choices[question.answer])
    expect(page.get_by_text(question.explanation)).to_be_visible()
    chose_b = "(1 chose it)" if question.answer_letter != "B" else "(right) (1 chose it)"
    expect(page.get_by_role("listitem").filter(has_text=question.choices[1])).to_contain_text(chose_b)
    expect(page.get_by_text(re.compile(r"Asked 1 time here, 1 answer, (0|100)% right"))).to_be_visible()
    docs_shot(page, "question")
    page.goto(dash.url + "/s/console/local/questions")
    expect(page.get_by_role("link", name=qid)).to_have_attribute("href", f"/s/console/local/questions/{qid}")
    assert page.goto(dash.url + "/s/console/local/questions/theirs/q-1").status == 404  # no such pack here
    assert page.goto(dash.url + "/s/console/local/questions/no-such-question").status == 404


def test_past_questions_list_a_question_once_revealed_with_its_answer_and_yours(dash: Dashboard, page: Page):
    terminal = ChannelRef("console", "local", "terminal")
    add_channel(dash, ChannelRef("console", "local", "quiet"))
    today = dash.run(dash.features.channels.latest_daily_round(terminal))
    question = next(q for q in dash.features.context.bank.questions if q.id == today.question_id)
    wrong = (question.answer + 1) % len(question.choices)
    dash.console_says("/quiz as ann")
    dash.console_says(f"/quiz answer {question.answer_letter}")
    dash.console_says("/quiz as you")
    dash.console_says(f"/quiz answer {'ABCD'[wrong]}")
    sign_in(page, dash)
    page.get_by_role("link", name="Past questions").click()
    expect(page.get_by_role("heading", name="Past questions", level=1)).to_be_visible()
    expect(page.get_by_text("No daily question has been revealed yet")).to_be_visible()
    expect(page.get_by_text(question.prompt)).to_have_count(0)  # open: nothing of it before its reveal

    assert "Reveal" in dash.console_says("/quiz config reveal")
    page.reload()
    expect(page.get_by_role("heading", level=2)).to_have_text(
        re.compile(rf"^{today.local_date:%a %d %b %Y} in terminal")
    )
    expect(page.get_by_text(question.prompt)).to_be_visible()
    right = page.get_by_role("listitem").filter(has_text="(right)")
    expect(right).to_contain_text(f"{question.choices[question.answer]} (right) (1 chose it)")
    mine = page.get_by_role("listitem").filter(has_text="(your answer)")
    expect(mine).to_contain_text(f"{question.choices[wrong]} (your answer) (1 chose it)")
    expect(page.get_by_text(question.explanation)).to_be_visible()
    expect(page.get_by_text("1 of 2 right (50%). You: " + "ABCD"[wrong] + ", not right.")).to_be_visible()
    docs_shot(page, "past")

    page.get_by_text("Report a problem with this question").click()
    page.get_by_label("What is wrong").select_option(label="unclear")
    page.get_by_label("Details (optional)").fill("Which version of PyTorch?")
    page.get_by_role("button", name="Send the report").click()
    thanks = f"Thanks: your report #1 (unclear) on question {question.id} is in the admins' queue."
    expect(page.get_by_role("status")).to_have_text(thanks)
    assert page.url.endswith(f"/past#q-{today.id}")
    page.reload()  # the report was sent once: nothing is said or sent again
    expect(page.get_by_role("status")).to_have_count(0)
    page.get_by_text("Report a problem with this question").click()
    page.get_by_role("button", name="Send the report").click()
    expect(page.get_by_role("alert")).to_have_text("You have already reported this question; an admin will look at it.")
    token = page.locator("input[name=csrf]").first.get_attribute("value")
    refusals = [
        ({"round": "²", "reason": "typo"}, "That question is not known here."),
        ({"round": str(today.id), "reason": "bogus"}, "Pick what is wrong: wrong answer, unclear, typo, other."),
    ]
    for form, said in refusals:
        forged = page.request.post(dash.url + "/s/console/local/past/report", form={"csrf": token, **form})
        assert forged.status == 400 and said in forged.text()
    queue = dash.run(dash.features.reports.queue(ADMIN, "console", "local"))
    assert [(r.id, r.question_id, r.reason.value, r.text) for r in queue.reports] == [
        (1, question.id, "unclear", "Which version of PyTorch?")
    ]

    page.get_by_label("Channel").select_option(label="quiet")  # the second channel: nothing revealed there
    page.get_by_role("button", name="Show").click()
    expect(page.get_by_text("No daily question has been revealed in quiet yet")).to_be_visible()
    assert page.goto(dash.url + "/s/console/local/past?page=%C2%B2&channel=elsewhere").status == 200  # '²': page 1
    expect(page.get_by_text(question.prompt)).to_be_visible()
    said = dash.console_says("/quiz past")  # the chat reads the same service
    assert question.prompt[:40] in said and f"You: {'ABCD'[wrong]}, not right." in said


def test_the_overview_says_what_waits_for_the_member_today(dash: Dashboard, page: Page):
    sign_in(page, dash)
    day = page.locator("section", has=page.get_by_role("heading", name="Your day"))
    expect(day).to_contain_text("terminal: today's question is waiting for your answer")
    expect(day).to_contain_text("0 reviews to do today: Review.")
    today = dash.run(dash.features.channels.latest_daily_round(ChannelRef("console", "local", "terminal")))
    question = next(q for q in dash.features.context.bank.questions if q.id == today.question_id)
    day.get_by_text("Answer it here").click()
    expect(day.get_by_text(question.prompt)).to_be_visible()
    day.get_by_role("button", name="Lock in my answer").click()  # nothing picked: said, nothing recorded
    expect(page.get_by_role("alert")).to_have_text("Pick an answer: A, B, C or D.")
    page.get_by_text("Answer it here").click()
    page.get_by_label(question.choices[2]).check()
    page.get_by_role("button", name="Lock in my answer").click()
    expect(page.get_by_role("status")).to_have_text(
        "Your answer C is locked in. You will see whether it is right when the answer is revealed."
    )  # as in the channel: never whether it is right before the reveal
    answer = dash.run(dash.store.get_answer(today.id, "you"))
    assert answer is not None and answer.choice == 2
    page.reload()  # recorded once: a reload says and sends nothing again
    expect(page.get_by_role("status")).to_have_count(0)
    token = page.locator("input[name=csrf]").first.get_attribute("value")
    again = page.request.post(
        dash.url + "/s/console/local/today", form={"csrf": token or "", "round": str(today.id), "choice": "A"}
    )
    assert again.status == 400 and "You already answered C; the first answer is the one that counts." in again.text()
    assert dash.run(dash.store.get_answer(today.id, "you")).choice == 2  # the first answer locked
    assert today.closes_at is not None
    expect(day).to_contain_text(
        f"terminal: your answer C is locked in; the answer is revealed {today.closes_at:%a %d %b %H:%M} (UTC)."
    )
    dash.console_says("/quiz config reveal")
    page.reload()
    expect(day).to_contain_text("No daily question is open right now.")
    day.get_by_role("link", name="Review").click()
    expect(page.get_by_role("heading", name="Review", level=1)).to_be_visible()


def test_a_review_on_the_dashboard_serves_judges_and_counts_like_quiz_review(dash: Dashboard, page: Page):
    sign_in(page, dash)
    page.get_by_role("navigation", name="Console").get_by_role("link", name="Review", exact=True).click()
    expect(page.get_by_role("heading", name="Review", level=1)).to_be_visible()
    expect(page.get_by_text("0 reviews to do today (at most 20 a day)")).to_be_visible()
    page.get_by_role("button", name="Review a question").click()
    expect(page.get_by_role("status")).to_contain_text("Nothing to review yet")  # as /quiz review says
    for _ in range(2):  # two practice questions missed in the chat: their cards are due for review
        dash.console_says("/quiz")
        missed = dash.run(dash.features.practice.waiting_question("console", "local", "you"))
        assert missed is not None
        asked = next(q for q in dash.features.context.bank.questions if q.prompt == missed.prompt)
        assert "Not quite" in dash.console_says("ABCD"[(asked.answer + 1) % 4])
    dash.clock.advance(days=1)  # a miss comes back the next day
    page.reload()
    expect(page.get_by_text("2 reviews to do today (at most 20 a day)")).to_be_visible()
    page.get_by_role("button", name="Review a question").click()
    served = dash.run(dash.features.practice.waiting_question("console", "local", "you"))
    assert served is not None, page.inner_text("main")
    question = next(q for q in dash.features.context.bank.questions if q.prompt == served.prompt)
    expect(page.get_by_role("heading", name=served.title)).to_be_visible()
    docs_shot(page, "review")
    page.get_by_role("button", name="Answer").click()  # nothing picked: said, nothing recorded
    expect(page.get_by_role("alert")).to_have_text("Pick an answer: A, B, C or D.")
    wrong = (question.answer + 1) % 4
    page.get_by_label(question.choices[wrong]).check()
    page.get_by_role("button", name="Answer").click()
    expect(page.get_by_role("heading", name=f"Not quite: the answer is {question.answer_letter}")).to_be_visible()
    expect(page.get_by_role("listitem").filter(has_text="(your answer)")).to_contain_text(question.choices[wrong])
    expect(page.get_by_text(question.explanation)).to_be_visible()
    expect(page.get_by_text("You were sure, and it was wrong")).to_be_visible()
    page.reload()  # the answer was recorded once; the verdict stays readable
    expect(page.get_by_role("heading", name=f"Not quite: the answer is {question.answer_letter}")).to_be_visible()
    answer = dash.run(dash.store.get_answer(served.round_id, "you"))
    assert answer is not None and answer.choice == wrong and not answer.correct
    expect(page.get_by_text("1 review to do today (at most 20 a day)")).to_be_visible()

    page.get_by_role("button", name="Next question").click()
    second = dash.run(dash.features.practice.waiting_question("console", "local", "you"))
    assert second is not None and second.round_id != served.round_id
    right = next(q for q in dash.features.context.bank.questions if q.prompt == second.prompt)
    page.get_by_label(right.choices[right.answer]).check()
    page.get_by_label("Not sure").check()
    page.get_by_role("button", name="Answer").click()
    expect(page.get_by_role("heading", name="Correct!")).to_be_visible()
    expect(page).to_have_url(re.compile(r"answered=\d+&sure=0#verdict$"))
    expect(page.get_by_text("0 reviews to do today (at most 20 a day)")).to_be_visible()
    forged = page.request.post(
        dash.url + "/s/console/local/review/answer",
        form={
            "csrf": page.locator("input[name=csrf]").first.get_attribute("value"),
            "round": str(second.round_id),
            "choice": "A",
        },
    )
    assert forged.status == 400 and "This question is closed; its answer has been" in forged.text()  # it locked
    assert "answered 4 (0 daily, 4 practice)" in dash.console_says("/quiz stats")  # two in the chat, two here


def test_a_newcomer_practises_a_topic_on_the_review_page(dash: Dashboard, page: Page):
    sign_in(page, dash)
    page.goto(dash.url + "/s/console/local/review")
    page.get_by_label("Or practise a topic").select_option(label="Autograd")
    page.get_by_role("button", name="Practise a question").click()
    expect(page.get_by_role("heading", name="Practice: Autograd")).to_be_visible()
    served = dash.run(dash.features.practice.waiting_question("console", "local", "you"))
    assert served is not None
    question = next(q for q in dash.features.context.bank.questions if q.prompt == served.prompt)
    assert question.topic == "autograd"
    page.get_by_label(question.choices[question.answer]).check()
    page.get_by_role("button", name="Answer").click()
    expect(page.get_by_role("heading", name="Correct!")).to_be_visible()
    assert "answered 1 (0 daily, 1 practice)" in dash.console_says("/quiz stats")  # never on the boards
    forged = page.request.post(
        dash.url + "/s/console/local/review/practice",
        form={"csrf": page.locator("input[name=csrf]").first.get_attribute("value") or "", "topic": "lore"},
    )
    assert forged.status == 400 and "is not a topic" in forged.text()


def test_my_progress_shows_its_charts_with_text_alternatives(dash: Dashboard, page: Page):
    for topic in ("tensors", "autograd", "modules"):  # a topic's memory is charted from 3 questions seen: the
        for _ in range(3):  # three of each topic but the open daily question's (practice never serves it)
            dash.console_says(f"/quiz practice {topic}")
            dash.console_says("A")
    dash.run(dash.features.practice.write_card_updates())
    sign_in(page, dash)
    page.get_by_role("link", name="My progress").click()
    expect(page.get_by_role("heading", name="My progress")).to_be_visible()
    charts = page.locator("figure img")
    expect(charts).to_have_count(2)
    for i in range(2):
        chart = charts.nth(i)
        chart.scroll_into_view_if_needed()
        expect(chart).to_have_attribute("alt", re.compile(r"(Accuracy by topic|Memory by topic in 30 days).*: \d+%"))
        page.wait_for_function("img => img.complete && img.naturalWidth > 0", arg=chart.element_handle())
    expect(page.get_by_role("table", name="The chart's numbers").first).to_be_visible()
    expect(page.get_by_role("heading", name="Learning report")).to_be_visible()
    expect(page.get_by_role("heading", name="Calibration", exact=True)).to_be_visible()
    docs_shot(page, "my-progress")


def test_reminders_set_on_my_progress_are_the_ones_remind_shows_in_the_chat(dash: Dashboard, page: Page):
    sign_in(page, dash)
    page.get_by_role("link", name="My progress").click()
    reminders = page.locator("section", has=page.get_by_role("heading", name="Reminders"))
    expect(reminders).to_contain_text("Reminders are off.")
    expect(page.get_by_label("Today's question from")).to_have_value("terminal")
    page.get_by_label("Send reminders").select_option("on")
    page.get_by_label("Time", exact=True).fill("07:30")
    page.get_by_label("Timezone").fill("Mars/Base")
    page.get_by_role("button", name="Save reminders").click()
    expect(page.get_by_role("alert")).to_contain_text("'Mars/Base' is not an IANA timezone")
    expect(page.get_by_label("Timezone")).to_have_value("Mars/Base")  # what was typed stays, to correct it
    assert "Reminders are off" in dash.console_says("/quiz remind")  # nothing saved
    page.get_by_label("Timezone").fill("america/new_york")
    page.get_by_role("button", name="Save reminders").click()
    expect(page.get_by_role("status")).to_have_text(
        re.compile(r"^Saved\. Reminders are on: at 07:30 \(America/New_York\); the next one")
    )
    expect(reminders).to_contain_text("Reminders are on: at 07:30 (America/New_York); the next one")
    assert "Reminders are on: at 07:30 (America/New_York)" in dash.console_says("/quiz remind")
    dash.console_says("/quiz remind off")
    page.reload()
    expect(reminders).to_contain_text("Reminders are off.")
    expect(page.get_by_label("Time", exact=True)).to_have_value("07:30")  # off keeps what to turn back on
    expect(page.get_by_label("Send reminders")).to_have_value("off")


def test_forget_me_on_my_progress_asks_for_its_box_then_deletes_once(dash: Dashboard, page: Page):
    assert "Team Torchers is created" in dash.console_says("/quiz team create Torchers")
    sign_in(page, dash)
    page.get_by_role("link", name="My progress").click()
    page.get_by_role("button", name="Delete my data").click()  # the box not ticked
    expect(page.get_by_role("alert")).to_have_text("Tick the box to confirm; nothing was deleted.")
    expect(page.get_by_label(re.compile("Yes, delete my data in"))).to_have_attribute("aria-invalid", "true")
    assert "You are in Torchers." in dash.console_says("/quiz team list")  # nothing deleted
    page.get_by_label(re.compile("Yes, delete my data in")).check()
    page.get_by_role("button", name="Delete my data").click()
    expect(page.get_by_role("status")).to_contain_text("Done: deleted")
    expect(page).to_have_url(re.compile(r"/progress$"))  # redirected: a reload deletes nothing again
    page.reload()
    expect(page.get_by_role("status")).to_have_count(0)
    assert "You are in Torchers." not in dash.console_says("/quiz team list")


def test_a_review_limit_and_a_pause_set_on_my_progress_hold_in_the_chat(dash: Dashboard, page: Page):
    sign_in(page, dash)
    page.get_by_role("link", name="My progress").click()
    reviews = page.locator("section", has=page.get_by_role("heading", name="Reviews", exact=True))
    expect(reviews).to_contain_text("At most 20 reviews a day; 0 to do today: review them here.")
    page.get_by_label("Reviews a day").fill("500")
    page.get_by_role("button", name="Save the limit").click()
    expect(page.get_by_role("alert")).to_have_text("A daily review limit is 1 to 100. Nothing was changed.")
    page.get_by_label("Reviews a day").fill("five")
    page.get_by_role("button", name="Save the limit").click()
    expect(page.get_by_role("alert")).to_contain_text("'five' is not a whole number: use 1 to 100 reviews a day.")
    assert "at most 20 a day" in dash.console_says("/quiz stats")  # nothing saved
    page.get_by_label("Reviews a day").fill("5")
    page.get_by_role("button", name="Save the limit").click()
    expect(page.get_by_role("status")).to_have_text("Saved: at most 5 reviews a day.")
    expect(reviews).to_contain_text("At most 5 reviews a day")
    assert "at most 5 a day" in dash.console_says("/quiz stats")
    page.get_by_label("Pause for (days)").fill("10")
    page.get_by_role("button", name="Pause reviews").click()
    expect(reviews).to_contain_text("Your reviews are paused until Thu 10 Dec")
    expect(page.get_by_role("status")).to_have_text("Saved: reviews paused for 10 days.")
    assert "paused until" in dash.console_says("/quiz stats")
    page.get_by_role("button", name="Resume reviews now").click()
    expect(reviews).to_contain_text("At most 5 reviews a day")
    expect(page.get_by_role("status")).to_have_text("Saved: reviews resumed.")
    assert "Your reviews are not paused." in dash.console_says("/quiz review resume")


def test_an_interview_plan_made_on_my_progress_is_the_one_quiz_plan_shows(dash: Dashboard, page: Page):
    sign_in(page, dash)
    page.get_by_role("link", name="My progress").click()
    plan = page.locator("section", has=page.get_by_role("heading", name="Interview plan"))
    expect(plan).to_contain_text("No plan.")
    page.get_by_label("Interview date").fill("2026-11-01")  # before today
    page.get_by_role("button", name="Save the plan").click()
    expect(page.get_by_role("alert")).to_contain_text("2026-11-01 is not after today")
    expect(page.get_by_label("Interview date")).to_have_value("2026-11-01")  # what was typed stays, to correct it
    assert "You have no plan here" in dash.console_says("/quiz plan")  # nothing saved
    page.get_by_label("Interview date").fill("2027-01-15")
    page.get_by_role("checkbox", name="autograd").check()
    page.get_by_role("checkbox", name="tensors").check()
    page.get_by_role("button", name="Save the plan").click()
    expect(page.get_by_role("status")).to_have_text("Saved: a plan for Fri 15 Jan 2027 (autograd, tensors).")
    expect(plan).to_contain_text("Plan for Fri 15 Jan 2027 (autograd, tensors)")
    assert "Plan for Fri 15 Jan 2027 (autograd, tensors)" in dash.console_says("/quiz plan")
    expect(page.get_by_role("checkbox", name="autograd")).to_be_checked()
    expect(page.get_by_label("Interview date")).to_have_value("2027-01-15")
    page.get_by_role("button", name="Drop the plan").click()
    expect(plan).to_contain_text("No plan.")
    assert "You have no plan here" in dash.console_says("/quiz plan")


def test_a_plan_takes_the_questions_of_the_channel_chosen_for_it(dash: Dashboard, page: Page):
    admin, lore = Actor("you", True), ChannelRef("console", "local", "lore-room")
    fixed = BROKEN.replace("    explanation:", "    answer: A\n    explanation:").encode()
    dash.run(dash.features.packs.import_pack(admin, lore, "team", fixed, "yaml"))
    dash.run(dash.store.save_channel(ChannelConfig(ref=lore, packs=frozenset({"team"}))))
    sign_in(page, dash)
    page.get_by_role("link", name="My progress").click()
    expect(page.get_by_label("Questions of the channel")).to_have_value("lore-room")  # the first channel
    page.get_by_label("Questions of the channel").select_option("terminal")
    page.get_by_label("Interview date").fill("2027-01-15")
    page.get_by_role("checkbox", name="lore").check()  # a topic of lore-room's pack only
    page.get_by_role("button", name="Save the plan").click()
    expect(page.get_by_role("alert")).to_contain_text("'lore' is not a topic here")
    expect(page.get_by_role("checkbox", name="lore")).to_be_checked()  # the form as it was sent
    expect(page.get_by_label("Questions of the channel")).to_have_value("terminal")
    assert "You have no plan here" in dash.console_says("/quiz plan")  # nothing saved
    page.get_by_label("Questions of the channel").select_option("lore-room")
    page.get_by_role("button", name="Save the plan").click()
    expect(page.get_by_role("status")).to_have_text("Saved: a plan for Fri 15 Jan 2027 (lore).")
    expect(page.get_by_label("Questions of the channel")).to_have_value("lore-room")
    assert "Plan for Fri 15 Jan 2027 (lore)" in dash.console_says("/quiz plan")
    [plan] = [p for p in [dash.run(dash.store.learner_plan("console", "local", "you"))] if p is not None]
    assert plan.channel_id == "lore-room"


def test_the_leaderboards_show_the_team_board_and_the_live_board(dash: Dashboard, page: Page):
    sign_in(page, dash)
    page.goto(dash.url + "/s/console/local/leaderboards")
    expect(page.get_by_text("No teams here yet: create one with /quiz team create NAME.")).to_be_visible()
    expect(page.get_by_text("No live games played here yet.")).to_be_visible()
    assert "Team Torchers is created" in dash.console_says("/quiz team create Torchers")
    assert "Live game on: 3 questions" in dash.console_says("/quiz live 3")
    for _ in range(20):  # the game's steps as the tick runs them, each when it is due, and an answer to each
        due = dash.run(dash.features.live.run_due())
        dash.console_says("A")  # the open question's (the first locks); between questions, nothing to answer
        if due is None:
            break
        dash.clock.set(max(due, dash.clock.now()))
    assert "Live game: final results" in dash.out.getvalue()
    page.goto(dash.url + "/s/console/local/leaderboards?period=month")
    teams = page.get_by_role("table", name=re.compile("A team scores the daily points of its best 3 members"))
    expect(teams.get_by_role("row", name=re.compile("Torchers"))).to_contain_text("best 1 of 1")
    live = page.get_by_role("table", name=re.compile("Live games: points and games won"))
    expect(live.get_by_role("row", name=re.compile("you"))).to_contain_text(re.compile(r"of 1$"))
    expect(page.get_by_role("heading", name="Teams: November 2026")).to_be_visible()
    docs_shot(page, "leaderboards")


def test_members_create_join_and_leave_teams_and_an_admin_renames_and_removes_them(dash: Dashboard, page: Page):
    sign_in(page, dash)
    page.goto(dash.url + "/s/console/local/leaderboards")
    mine = page.locator("section", has=page.get_by_role("heading", name="Your team"))
    expect(mine).to_contain_text("You are in no team.")
    page.get_by_label("New team's name").fill("<@everyone>")
    page.get_by_role("button", name="Create and join").click()
    expect(page.get_by_role("alert")).to_contain_text("cannot be a team name")
    assert "No teams here yet" in dash.console_says("/quiz team list")  # nothing made
    page.get_by_label("New team's name").fill("Gradient Descenders")
    page.get_by_role("button", name="Create and join").click()
    expect(page.get_by_role("status")).to_contain_text("Team Gradient Descenders is created, and you are in it.")
    page.reload()  # the form redirected to the board: a reload sends nothing again, and says it once only
    expect(page.get_by_role("status")).to_have_count(0)
    expect(mine).to_contain_text("You are in Gradient Descenders (1 member).")
    assert "You are in Gradient Descenders." in dash.console_says("/quiz team list")
    page.get_by_role("button", name="Leave Gradient Descenders").click()
    expect(page.get_by_role("status")).to_contain_text("You left team Gradient Descenders.")
    dash.console_says("/quiz as ann")
    dash.console_says("/quiz team create Torchers")
    dash.console_says("/quiz as you")
    page.goto(dash.url + "/s/console/local/leaderboards?period=month")
    page.get_by_label("Team", exact=True).select_option("Torchers")
    page.get_by_role("button", name="Join", exact=True).click()
    expect(page.get_by_role("status")).to_contain_text("You joined team Torchers.")
    expect(page).to_have_url(re.compile(r"/leaderboards\?period=month#your-team$"))  # the board it was sent from
    expect(mine).to_contain_text("You are in Torchers (2 members).")
    page.get_by_label("Rename Torchers to").fill("Torch Bearers")
    page.get_by_role("button", name="Rename", exact=True).click()
    expect(page.get_by_role("status")).to_contain_text("Team Torchers is now called Torch Bearers.")
    assert "- Torch Bearers: 2 members" in dash.console_says("/quiz team list")
    page.get_by_role("button", name="Remove Torch Bearers").click()
    expect(page.get_by_role("status")).to_contain_text("Team Torch Bearers is removed")
    assert "No teams here yet" in dash.console_says("/quiz team list")


def test_a_member_suggests_a_question_and_a_broken_field_is_named_beside_it(dash: Dashboard, page: Page):
    sign_in(page, dash)
    page.get_by_role("link", name="Suggest a question").click()
    page.get_by_label("Topic").fill("autograd")
    page.get_by_label("Question").fill("What does x.grad hold after y.backward() for y = 3 * x?")
    page.get_by_label("Code (optional)").fill("x = torch.tensor(2.0, requires_grad=True)\n(3 * x).backward()")
    for letter, text in zip("ABCD", ("tensor(3.)", "tensor(1.)", "None", "tensor(0.)"), strict=True):
        page.get_by_label(letter, exact=True).fill(text)
    page.get_by_label("Explanation").fill("backward() stores dy/dx, which is 3, in x.grad.")
    page.get_by_role("button", name="Suggest it").click()  # no right choice picked
    expect(page.get_by_role("alert")).to_have_text("Your suggestion was not saved: correct the field marked below.")
    expect(page.get_by_label("Right choice")).to_have_attribute("aria-invalid", "true")
    expect(page.get_by_label("Right choice")).to_have_accessible_description(
        re.compile("give the letter of the right choice: A, B, C or D")
    )
    docs_shot(page, "suggest")
    expect(page.get_by_label("Question")).to_have_value("What does x.grad hold after y.backward() for y = 3 * x?")
    assert "No suggestions are waiting" in dash.console_says("/quiz admin suggestions")  # nothing stored
    page.get_by_label("Right choice").select_option("A")
    page.get_by_role("button", name="Suggest it").click()
    expect(page.get_by_role("status")).to_contain_text("Thanks! Your question is suggestion #1")
    expect(page.get_by_label("Question")).to_have_value("")  # a fresh form for the next one
    page.reload()  # the form redirected to itself: a reload stores nothing again
    expect(page.get_by_role("status")).to_have_count(0)
    assert dash.run(dash.store.get_suggestion("console", "local", 2)) is None
    assert "What does x.grad hold after y.backward()" in dash.console_says("/quiz admin suggestions")
    pending = dash.run(dash.store.get_suggestion("console", "local", 1))
    assert pending is not None  # the code keeps one line break where the textarea sent CR LF
    assert json.loads(pending.body)["code"] == "x = torch.tensor(2.0, requires_grad=True)\n(3 * x).backward()"


def test_another_spaces_ids_get_404(dash: Dashboard, page: Page):
    add_channel(dash, ChannelRef("discord", "999", "theirs"))
    sign_in(page, dash)
    assert page.goto(dash.url + "/s/discord/999").status == 404
    expect(page.get_by_role("heading", name="Not found")).to_be_visible()
    assert page.goto(dash.url + "/s/console/local/channels/theirs").status == 404  # their channel, our space
    assert page.goto(dash.url + "/s/console/local/packs/nope").status == 404
    page.goto(dash.url + "/s/console/local/queues")
    token = page.locator("input[name=csrf]").first.get_attribute("value")
    tampered = page.request.post(dash.url + "/s/console/local/reports/77", form={"csrf": token, "action": "keep"})
    assert tampered.status == 404
    superscript = page.request.post(
        dash.url + "/s/console/local/reports/%C2%B2", form={"csrf": token, "action": "keep"}
    )
    assert superscript.status == 404  # '²' passes str.isdigit() but is no number
    assert page.goto(dash.url + "/s/console/local/packs/pytorch?page=%C2%B2").status == 200  # the first page


def test_a_form_without_its_csrf_token_gets_403(dash: Dashboard, page: Page):
    sign_in(page, dash)
    url = dash.url + "/s/console/local/channels/terminal"
    refused = page.request.post(url, form={"time": "11:00"})
    assert refused.status == 403
    forged = page.request.post(url, form={"time": "11:00", "csrf": "not-the-token"})
    assert forged.status == 403
    assert "time 09:00" in dash.console_says("/quiz config show")  # nothing changed


def test_a_channel_shows_only_its_platforms_settings_and_takes_no_other(dash: Dashboard, page: Page):
    sign_in(page, dash)
    page.get_by_role("link", name="terminal").click()
    expect(page.get_by_label("time", exact=True)).to_be_visible()
    for other in ("ping group", "champion role", "manager role", "ping role"):  # Slack's and Discord's own
        expect(page.get_by_label(other, exact=True)).to_have_count(0)
    token = page.locator("#content input[name=csrf]").first.get_attribute("value")
    url = dash.url + "/s/console/local/channels/terminal"
    sent = page.request.post(url, form={"csrf": token or "", "ping_group": "S0123ABC", "manager_role": "42"})
    assert sent.status == 200 and "Nothing changed." in sent.text()
    saved = dash.run(dash.store.get_channel(ChannelRef("console", "local", "terminal")))
    assert saved is not None and saved.ping_group is None and saved.manager_role is None


def test_readable_at_375_px_by_keyboard_without_javascript(dash: Dashboard, browser: Browser):
    context = browser.new_context(viewport={"width": 375, "height": 800}, java_script_enabled=False)
    small = context.new_page()
    try:
        small.goto(dash.link())
        small.get_by_role("button", name="Sign in").click()  # a plain form: no script needed
        pages = ("", "/channels/terminal", "/packs", "/queues", "/questions", "/questions/tensors-1", "/leaderboards")
        for path in (*pages, "/progress", "/suggest", "/past", "/review"):
            small.goto(dash.url + "/s/console/local" + path)
            width = small.evaluate("document.documentElement.scrollWidth")
            assert width <= 375, (path, width)
        small.goto(dash.url + "/s/console/local/channels/terminal")
        small.keyboard.press("Tab")
        assert small.evaluate("document.activeElement.textContent") == "Skip to content"
        small.keyboard.press("Tab")
        outline = small.evaluate("getComputedStyle(document.activeElement).outlineStyle")
        assert outline == "solid"
        dash.console_says("/quiz team create Torchers")  # so the leaderboards show their team forms
        dash.console_says("/quiz config reveal")  # so Past questions shows a question and its report form
        dash.console_says("/quiz")  # so Review shows a practice question waiting for its answer
        every = ("/channels/terminal", "/progress", "/suggest", "/leaderboards", "/past", "/review")
        for path in every:  # every field has its label, at 375 px too
            small.goto(dash.url + "/s/console/local" + path)
            width = small.evaluate("document.documentElement.scrollWidth")
            assert width <= 375, (path, width)
            fields = small.locator("main input:not([type=hidden]), main select, main textarea").all()
            assert fields, path
            for field in fields:
                field_id = field.get_attribute("id")
                assert small.locator(f"label[for='{field_id}']").count() == 1, (path, field_id)
    finally:
        context.close()
