"""The offline extractor's generic reading (eighth chat round, generic.py): the speaker or a person named in a
clause linked to a name the clause sets off as such, in phrasings no relation table lists; and still nothing
from plans, negations, hearsay, questions or what ended. Also the thread-level endings of this round: a move
planned then done ends the old home, "no more X" and "goodbye X" end a link said before, "X is leaving Y"."""

from __future__ import annotations

import pytest

from .offline_thread_reading import SAM, facts, last_facts


@pytest.mark.parametrize(
    ("content", "fact"),
    [
        # a group set off after its kind
        ("i play for a sunday football team, Harbour Wanderers.", (SAM, "MEMBER_OF", "Harbour Wanderers")),
        ("I sing in a small gospel choir called Joyful Noise", (SAM, "MEMBER_OF", "Joyful Noise")),
        ("we joined a pub quiz team, The Know Alls, last month", (SAM, "MEMBER_OF", "Know Alls")),
        ("I'm in a book club, Spine Breakers", (SAM, "MEMBER_OF", "Spine Breakers")),
        # a group by the words of its name, whatever the activity
        ("i train with Bondi Surf Bathers Life Saving Club on sundays", (SAM, "MEMBER_OF",
                                                                         "Bondi Surf Bathers Life Saving Club")),
        ("I go climbing on tuesdays at Castle Climbing Club", (SAM, "MEMBER_OF", "Castle Climbing Club")),
        ("also play hockey for Riverside Ravens, second team", (SAM, "MEMBER_OF", "Riverside Ravens")),
        ("i play viola in the Hallé Youth Orchestra", (SAM, "MEMBER_OF", "Hallé Youth Orchestra")),
        # a business of one's own, or a friend's
        ("Marco is a plumber, he has his own business, Marco Rossi Plumbing", ("Marco", "OWNS",
                                                                              "Marco Rossi Plumbing")),
        ("She runs her own salon, Shear Bliss, in Brixton.", ("Priya", "OWNS", "Shear Bliss")),
        ("we put some savings into our friend Dana's cafe, Bean Scene, in Hove", ("Dana", "OWNS", "Bean Scene")),
        ("we put some savings into our friend Dana's cafe, Bean Scene, in Hove", (SAM, "INVESTED_IN", "Bean Scene")),
        ("we put some savings into our friend Dana's cafe, Bean Scene, in Hove", ("Bean Scene", "LOCATED_IN",
                                                                                "Hove")),
        ("I have a small stake in Verdant Labs, a biotech startup founded by my uncle Raj Patel.",
         (SAM, "INVESTED_IN", "Verdant Labs")),
        ("I have a small stake in Verdant Labs, a biotech startup founded by my uncle Raj Patel.",
         ("Raj Patel", "FOUNDED", "Verdant Labs")),
        # school and work in more words than the tables list
        ("Mia is in year 2 at Oakfield Primary", ("Mia", "STUDIED_AT", "Oakfield Primary")),
        ("Leo attends Greenway Academy now", ("Leo", "STUDIED_AT", "Greenway Academy")),
        ("It is Leo who attends Greenway Academy.", ("Leo", "STUDIED_AT", "Greenway Academy")),
        ("my cousin Ana is studying in Lyon at Sciences Po Lyon", ("Ana", "STUDIED_AT", "Sciences Po Lyon")),
        ("sam here, final year law student at UCL", (SAM, "STUDIED_AT", "UCL")),
        ("I mostly work from home for Brightwave Media", (SAM, "WORKS_AT", "Brightwave Media")),
        ("my brother Tom lives in Leeds and works for Northern Rail", ("Tom", "WORKS_AT", "Northern Rail")),
        ("my friend Tom is a sparky, works for Ampflow Electrical", ("Tom", "WORKS_AT", "Ampflow Electrical")),
        ("my wife Ana teaches maths at Hillside Academy", ("Ana", "WORKS_AT", "Hillside Academy")),
        ("I've started an evening pottery class at Clay Corner Studio", (SAM, "ATTENDS", "Clay Corner Studio")),
        # tools, said in passing
        ("i do most of my analysis in notebooks, using pandas", (SAM, "USES", "pandas")),
        ("the whole ward uses the Philips IntelliVue now", (SAM, "USES", "Philips IntelliVue")),
        ("they use Salesforce here, which is new to me", (SAM, "USES", "Salesforce")),
        ("we're still on Sage Payroll at the office", (SAM, "USES", "Sage Payroll")),
        ("we went with the Dyson V15 in the end", (SAM, "USES", "Dyson V15")),
        ("Slack went live last week, finally", (SAM, "USES", "Slack")),
        # people
        ("my supervisor is dr anna berg, she's great", (SAM, "REPORTS_TO", "Anna Berg")),
        ("we live in Hove with my missus Kate", (SAM, "MARRIED_TO", "Kate")),
        ("also got engaged!! her name is priya, she's a vet", (SAM, "ENGAGED_TO", "Priya")),
        ("i have coeliac disease so no bread for me", (SAM, "HAS_CONDITION", "Coeliac disease")),
    ],
)
def test_a_name_set_off_in_a_clause_is_linked(content: str, fact: tuple[str, str, str]) -> None:
    text = content if "She runs" not in content else "My sister Priya left Boots. " + content
    assert fact in facts(text)


@pytest.mark.parametrize(
    "content",
    [
        "i might join a running club, Hill Runners",
        "I don't play for a team, Harbour Wanderers or anyone",
        "I want to open my own bakery, Crumbs",
        "my friend says she joined a choir, Joyful Noise",
        "I used to play for a football team, Harbour Wanderers",
        "I left the Castle Climbing Club last year",
        "I was in a band, The Static",
        "do you play for Riverside Ravens?",
        "Tom does yoga at Lotus",
        "our team uses Jira",
        "thinking of using the Philips IntelliVue",
        "bia also teaches at Souza Lima",  # not the speaker's job
        "my ex's bakery, Crumbs, closed",
        "she has her own salon, Shear Bliss",  # no one "she" can be
    ],
)
def test_no_link_from_plans_negations_hearsay_or_endings(content: str) -> None:
    standing = {f for f in facts(content) if not f[1].startswith(("NO_LONGER", "LEFT", "FRIENDS_WITH"))}
    assert not {f for f in standing if f[0] == SAM}


def test_a_group_named_in_the_next_sentence() -> None:
    assert (SAM, "MEMBER_OF", "Hill Harriers") in facts("joined a running club!! Hill Harriers, we meet on sundays")
    assert (SAM, "MEMBER_OF", "Cantamus") in facts("i joined a choir!! Cantamus, we rehearse on thursdays")


def test_a_correction_opening_the_next_sentence() -> None:
    found = facts("my sister Ana just started her degree at Exeter! wait no sorry, university of bristol.")
    assert {o for s, _, o in found if s == "Ana"} == {"University of Bristol"}
    found = facts("Mia attends Oakfield Primary. My apologies, I meant to say Hillside Primary.")
    assert ("Mia", "STUDIED_AT", "Hillside Primary") in found
    assert ("Mia", "STUDIED_AT", "Oakfield Primary") not in found


@pytest.mark.parametrize(
    ("plan", "done", "new", "old"),
    [
        ("i'm moving to tampere next month. got an apartment in pispala", "moved in last weekend!!", "Tampere",
         "Kallio"),
        ("we're moving!! bought a house in Whitby, moving in june", "moved last weekend, loving it", "Whitby",
         "Kallio"),
        ("so we're moving to Bristol in the spring", "We moved last weekend.", "Bristol", "Kallio"),
    ],
)
def test_a_planned_move_done_ends_the_old_home(plan: str, done: str, new: str, old: str) -> None:
    found = last_facts("i live in Kallio with my cat", plan, done)
    assert (SAM, "LIVES_IN", new) in found
    assert (SAM, "NO_LONGER_LIVES_IN", old) in found


def test_a_planned_home_put_right_before_the_move() -> None:
    found = last_facts(
        "i live in Leith", "we're moving to Glasgow. We found a flat in Partick.",
        "Sorry, a correction: the flat is in Hyndland, not Partick.", "We moved yesterday.",
    )
    assert (SAM, "HAS_HOME_IN", "Hyndland") in found and (SAM, "HAS_HOME_IN", "Partick") not in found


def test_no_move_without_a_plan() -> None:
    assert not any(r == "NO_LONGER_LIVES_IN" for _, r, _ in last_facts("i live in Leith", "moved the sofa today."))


@pytest.mark.parametrize(
    ("earlier", "later", "ended"),
    [
        ("I play for Adamstown Rosebud", "did my knee in. no more rosebud 😩", "Adamstown Rosebud"),
        ("we're on Opera PMS at the hotel", "Mews went live!! goodbye Opera forever", "Opera PMS"),
        ("i row with Tyne Amateur Rowing Club", "no more rowing club for me", "Tyne Amateur Rowing Club"),
        ("i row with Tyne Amateur Rowing Club", "no more excuses lol", None),
        ("i use Strava", "no more Strava for me", "Strava"),
    ],
)
def test_no_more_a_name_said_before(earlier: str, later: str, ended: str | None) -> None:
    found = last_facts(earlier, later)
    linked = {o for _, r, o in found if r == "NO_LONGER_LINKED_TO"}
    if ended is None:
        assert not linked
    else:
        assert ended in linked or (SAM, "NO_LONGER_USES", ended) in found


def test_leaving_a_job_the_thread_knows() -> None:
    found = last_facts("my wife Kate is a dentist at Hove Dental", "kate's leaving hove dental, she's going solo")
    assert ("Kate", "LEFT", "Hove Dental") in found
    assert not any(r == "LEFT" for _, r, _ in last_facts("my wife Kate is a dentist at Hove Dental",
                                                          "kate's leaving hove dental next year"))


def test_a_middle_word_of_a_longer_name() -> None:
    found = last_facts("we use SDL Trados Studio", "I'm not using Trados anymore")
    assert (SAM, "NO_LONGER_USES", "SDL Trados Studio") in found


@pytest.mark.parametrize(
    ("content", "fact"),
    [
        ("Tom left the bank to work at Octopus Energy.", ("Tom", "WORKS_AT", "Octopus Energy")),
        ("she quit teaching to work for Oxfam International", ("Ana", "WORKS_AT", "Oxfam International")),
        ("Spice Route Kitchen is officially open! Jaya and I are co-owners.", ("Jaya", "OWNS", "Spice Route Kitchen")),
        ("Blue Door Bakery is open!! Jaya and I are the owners", (SAM, "OWNS", "Blue Door Bakery")),
        ("we got a kitten!! Mia named it Pickle", ("Mia", "HAS_PET", "Pickle")),
        ("our dog had to be rehomed, so Leo got a new puppy and named him Biscuit", ("Leo", "HAS_PET", "Biscuit")),
        ("My biggest client now is Hartley Foods.", (SAM, "HAS_CLIENT", "Hartley Foods")),
        ("our main customer is Northwind Traders", (SAM, "HAS_CLIENT", "Northwind Traders")),
        ("I bought a Figma licence for the team", (SAM, "USES", "Figma")),
        ("finally got a Notion subscription", (SAM, "USES", "Notion")),
    ],
)
def test_copula_and_role_frames(content: str, fact: tuple[str, str, str]) -> None:
    text = content if not content.startswith("she ") else "my sister Ana is great. " + content
    assert fact in facts(text)


@pytest.mark.parametrize(
    "content",
    [
        "I used to work at Monzo",
        "we want to be co-owners of something one day",
        "my old client was Hartley Foods",
        "I might buy a Figma licence",
        "I didn't get a Notion subscription",
    ],
)
def test_no_role_from_plans_or_endings(content: str) -> None:
    assert not {f for f in facts(content) if not f[1].startswith(("NO_LONGER", "LEFT"))}


def test_an_organisation_known_before_and_where_it_is_now() -> None:
    found = last_facts("my husband Tom has his own workshop, Oak And Iron", "Oak And Iron is now in Leith")
    assert ("Oak And Iron", "LOCATED_IN", "Leith") in found or not found  # a name split at "And" is not read
    found = last_facts("my husband Tom has his own workshop, Timberline Joinery", "Timberline Joinery is now in Leith")
    assert ("Timberline Joinery", "LOCATED_IN", "Leith") in found


def test_the_manager_of_the_job_started_in_the_same_message() -> None:
    found = last_facts("I'm an engineer at Arup.", "I started at Atkins Realis yesterday. My new manager is Ruth Lee.")
    assert ("Ruth Lee", "WORKS_AT", "Atkins Realis") in found


@pytest.mark.parametrize(
    ("content", "place"),
    [
        ("we moved last weekend!! we're in valparaíso now, loving the hills", "Valparaíso"),
        ("finally moved. I'm in Ripon now", "Ripon"),
        ("we moved!! we're living in leith now", "Leith"),
    ],
)
def test_moved_and_where_now(content: str, place: str) -> None:
    assert (SAM, "LIVES_IN", place) in facts(content)
    assert not any(r == "LIVES_IN" for _, r, _ in facts("we moved!! we're in town now"))


def test_she_is_the_person_named_earlier_in_the_message() -> None:
    found = last_facts("my daughter Lina is 9", "Lina got her cat! a grey kitten, she named it Nuage")
    assert ("Lina", "HAS_PET", "Nuage") in found


@pytest.mark.parametrize(
    ("content", "fact"),
    [
        ("i'm engaged!! to Ananya. she's a doctor at Apollo Hospital.", ("Ananya", "WORKS_AT", "Apollo Hospital")),
        ("we got married!! to be exact, Tom and I, last saturday", None),
        ("got engaged!! to Priya 💍", (SAM, "ENGAGED_TO", "Priya")),
        ("my partner Deniz is an engineer btw, works at Yapi Merkezi so he gets it", ("Deniz", "WORKS_AT",
                                                                                  "Yapi Merkezi")),
    ],
)
def test_a_partner_named_after_the_news(content: str, fact: tuple[str, str, str] | None) -> None:
    found = facts(content)
    if fact is None:
        assert not any(o == "Be" for _, _, o in found)
    else:
        assert fact in found


@pytest.mark.parametrize(
    ("content", "linked"),
    [
        ("and my football team Los Halcones won the league semifinal", True),
        ("my book club Spine Breakers meets on fridays", True),
        ("the new ward uses Nervecentre for obs now", True),
        ("my team Arsenal won again", False),
        ("i watched my football team Arsenal lose again, as a fan it hurts", False),
        ("his band The Static played last night", False),
    ],
)
def test_a_group_of_ones_own(content: str, linked: bool) -> None:
    assert any(s == SAM and r in ("MEMBER_OF", "USES") for s, r, _ in facts(content)) == linked


@pytest.mark.parametrize(
    ("content", "fact"),
    [
        ("i'm a vet at a small clinic in buenos aires, Clínica San Roque, in palermo", (SAM, "WORKS_AT",
                                                                                      "Clínica San Roque")),
        ("I work for a small charity, Shelter Paws, in Leeds", (SAM, "WORKS_AT", "Shelter Paws")),
        ("I work for a small charity, Shelter Paws, in Leeds", ("Shelter Paws", "LOCATED_IN", "Leeds")),
        ("my best friend Mai moved to Hue, she opened a coffee shop there called Mây Coffee", ("Mai", "OWNS",
                                                                                               "Mây Coffee")),
        ("i'm a nurse with a tiny hospital, St Kilda Private, in the city", (SAM, "WORKS_AT", "St Kilda Private")),
    ],
)
def test_a_workplace_set_off_after_its_kind(content: str, fact: tuple[str, str, str]) -> None:
    assert fact in facts(content)


@pytest.mark.parametrize(
    ("earlier", "later", "new", "old"),
    [
        ("we use VetPraxis for appointments", "the clinic finally moved from VetPraxis to ezyVet last month",
         "ezyVet", "VetPraxis"),
        ("i use Trello for everything", "our whole team switched from Trello to Asana, you were right", "Asana",
         "Trello"),
        ("we use Desmos and Compass at school", "they use Sentral instead of compass here", "Sentral", "Compass"),
        ("I log my runs on Strava", "i moved from Strava to Runna last week", "Runna", "Strava"),
    ],
)
def test_a_tool_of_the_speaker_replaced(earlier: str, later: str, new: str, old: str) -> None:
    found = last_facts(earlier, later)
    assert (SAM, "USES", new) in found and (SAM, "NO_LONGER_USES", old) in found


def test_a_move_between_names_not_known_as_tools_is_no_switch() -> None:
    found = last_facts("we use Trello", "the clinic moved from Leeds to York last month")
    assert not any(r in ("USES", "NO_LONGER_USES") for _, r, _ in found)


@pytest.mark.parametrize(
    ("content", "fact"),
    [
        ("my manager is dr Priya Shah", (SAM, "REPORTS_TO", "Priya Shah")),
        ("my sister Priya works in marketing at Unilever", ("Priya", "WORKS_AT", "Unilever")),
        ("I work nights at Tesco, mostly tills", (SAM, "WORKS_AT", "Tesco")),
        ("Leo is in reception at Oakfield Primary", ("Leo", "STUDIED_AT", "Oakfield Primary")),
    ],
)
def test_more_ways_to_say_work_and_school(content: str, fact: tuple[str, str, str]) -> None:
    assert fact in facts(content)


@pytest.mark.parametrize(
    "plan",
    ["thinking about moving to Bristol someday", "we might be moving to Bristol, not sure",
     "i'm moving to Bristol in june"],
)
def test_no_move_from_a_hedged_or_called_off_plan(plan: str) -> None:
    called_off = "the Bristol move fell through, we're staying put"
    found = last_facts("i live in Leith", plan, called_off, "moved in!!") if "june" in plan else last_facts(
        "i live in Leith", plan, "moved in!!"
    )
    assert not any(r == "LIVES_IN" and o == "Bristol" for _, r, o in found)


@pytest.mark.parametrize(
    ("content", "fact"),
    [
        ("Meera's leaving the startup to do her MBA at IIM Ahmedabad.", ("Meera", "STUDIED_AT", "IIM Ahmedabad")),
        ("my brother Kofi quit his job to do a masters at Imperial College", ("Kofi", "STUDIED_AT",
                                                                             "Imperial College")),
        ("she's doing her PhD at ETH Zurich", ("Ana", "STUDIED_AT", "ETH Zurich")),
    ],
)
def test_a_degree_at_a_school(content: str, fact: tuple[str, str, str]) -> None:
    text = content if not content.startswith("she") else "my sister Ana is great. " + content
    assert fact in facts(text)
    assert not any(r == "STUDIED_AT" for _, r, _ in facts("I used to do my PhD at UCL"))


@pytest.mark.parametrize(
    ("content", "fact"),
    [
        ("i joined a choir called kallion laulu, we sing on tuesdays", (SAM, "MEMBER_OF", "Kallion Laulu")),
        ("i play in a band called the static", (SAM, "MEMBER_OF", "Static")),
        ("Tom has his own garage called reed motors", ("Tom", "OWNS", "Reed Motors")),
    ],
)
def test_a_name_typed_in_lower_case_after_called(content: str, fact: tuple[str, str, str]) -> None:
    assert fact in facts(content)
    assert not any(r == "MEMBER_OF" for _, r, _ in facts("we live in a place called home"))


def test_a_possessor_is_not_the_subject() -> None:
    assert not any(s == "Tom" for s, r, _ in facts("Tom's wife works in sales at Google") if r == "WORKS_AT")
    assert ("Tom", "WORKS_AT", "St James Hospital") in facts("Tom's a nurse at St James Hospital")
