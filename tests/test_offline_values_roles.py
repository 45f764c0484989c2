"""Values with their units and roles with their organisation, read offline (issue 20, item 6): the extractor
directly for the table and the negatives, and Memory on SQLite for a value replaced and a promotion."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest

from kronograph import Memory
from kronograph.ingest.offline import OfflineExtractor

REF = datetime(2025, 6, 14, 12, tzinfo=UTC)  # a Saturday
SAM = "Sam Carter"
D = "T00:00:00+00:00"
Row = tuple[str, str, str, dict[str, Any], str | None]


def facts(content: str) -> dict[tuple[str, str, str], tuple[dict[str, Any], str | None]]:
    found = OfflineExtractor().extract(content, reference_time=REF, speaker=SAM).facts
    return {(f.subject, f.relation, f.object): (f.attributes, f.valid_at) for f in found}


VALUES: list[tuple[str, Row]] = [
    (
        "The policy rate is 5.00 percent",
        ("policy rate", "HAS_VALUE", "5.00 percent", {"value": 5.0, "unit": "percent"}, None),
    ),
    (
        "the rate is 5.25% for 2025",
        ("rate", "HAS_VALUE", "5.25%", {"value": 5.25, "unit": "percent", "period": "2025"}, None),
    ),
    ("our budget is now $190", (f"{SAM}'s budget", "HAS_VALUE", "$190", {"value": 190, "unit": "USD"}, None)),
    (
        "Revenue was €3.2 million in Q2",
        ("revenue", "HAS_VALUE", "€3.2 million", {"value": 3200000, "unit": "EUR", "period": "Q2"}, None),
    ),
    ("status: blocked", (f"{SAM}'s status", "HAS_VALUE", "blocked", {"value": "blocked"}, None)),
    ("The project's status is on hold", (f"{SAM}'s status", "HAS_VALUE", "on hold", {"value": "on hold"}, None)),
    (
        "We kicked off Project Apollo. The project's status is on hold.",
        ("Project Apollo's status", "HAS_VALUE", "on hold", {"value": "on hold"}, None),
    ),
    ("My weight is 72 kg", (f"{SAM}'s weight", "HAS_VALUE", "72 kg", {"value": 72, "unit": "kg"}, None)),
    ("the headcount is now 45", ("headcount", "HAS_VALUE", "45", {"value": 45}, None)),
    (
        "As of June, the unemployment rate is 4.1%.",
        ("unemployment rate", "HAS_VALUE", "4.1%", {"value": 4.1, "unit": "percent"}, f"2025-06-01{D}"),
    ),
    (
        "Since March our rent has been £1,250 a month.",
        (f"{SAM}'s rent", "HAS_VALUE", "£1,250 a month", {"value": 1250, "unit": "GBP/month"}, f"2025-03-01{D}"),
    ),
    (
        "Acme's revenue was $45k last month",
        ("Acme's revenue", "HAS_VALUE", "$45k", {"value": 45000, "unit": "USD"}, f"2025-05-01{D}"),
    ),
    (
        "my salary is £52,000 since April",
        (f"{SAM}'s salary", "HAS_VALUE", "£52,000", {"value": 52000, "unit": "GBP"}, f"2025-04-01{D}"),
    ),
    (
        "The deposit rate stands at 3.75%",
        ("deposit rate", "HAS_VALUE", "3.75%", {"value": 3.75, "unit": "percent"}, None),
    ),
    (
        "Our monthly burn is $80k.",
        (f"{SAM}'s monthly burn", "HAS_VALUE", "$80k", {"value": 80000, "unit": "USD"}, None),
    ),
    (
        "Project Apollo's budget is USD 2.5m for FY2026",
        (
            "Project Apollo's budget",
            "HAS_VALUE",
            "USD 2.5m",
            {"value": 2500000, "unit": "USD", "period": "FY2026"},
            None,
        ),
    ),
    (
        "my resting heart rate is 58 bpm",
        (f"{SAM}'s resting heart rate", "HAS_VALUE", "58 bpm", {"value": 58, "unit": "bpm"}, None),
    ),
    ("The population is 1.2 million", ("population", "HAS_VALUE", "1.2 million", {"value": 1200000}, None)),
    (
        "Inflation was 2.4 percent in May.",
        ("inflation", "HAS_VALUE", "2.4 percent", {"value": 2.4, "unit": "percent"}, f"2025-05-01{D}"),
    ),
    ("Our ARR is now €1.5bn", (f"{SAM}'s ARR", "HAS_VALUE", "€1.5bn", {"value": 1500000000, "unit": "EUR"}, None)),
    (
        "GDP growth was 0.3% in Q3 2024",
        ("GDP growth", "HAS_VALUE", "0.3%", {"value": 0.3, "unit": "percent", "period": "2024-Q3"}, None),
    ),
    (
        "the price is 12 USD per seat",
        ("price", "HAS_VALUE", "12 USD per seat", {"value": 12, "unit": "USD/seat"}, None),
    ),
    ("Status: in progress", (f"{SAM}'s status", "HAS_VALUE", "in progress", {"value": "in progress"}, None)),
    ("my commute is 12 km", (f"{SAM}'s commute", "HAS_VALUE", "12 km", {"value": 12, "unit": "km"}, None)),
    (
        "The mortgage rate is 4.5 per cent",
        ("mortgage rate", "HAS_VALUE", "4.5 per cent", {"value": 4.5, "unit": "percent"}, None),
    ),
    (
        "our sprint capacity is 60 hours",
        (f"{SAM}'s sprint capacity", "HAS_VALUE", "60 hours", {"value": 60, "unit": "hours"}, None),
    ),
]

VALUES += [
    (
        "Q3 revenue was $12.4m.",
        ("revenue", "HAS_VALUE", "$12.4m", {"value": 12400000, "unit": "USD", "period": "Q3"}, None),
    ),
    (
        "Revenue for 2024 was £8.1 million.",
        ("revenue", "HAS_VALUE", "£8.1 million", {"value": 8100000, "unit": "GBP", "period": "2024"}, None),
    ),
    ("Q2 deliveries were 400k.", ("deliveries", "HAS_VALUE", "400k", {"value": 400000, "period": "Q2"}, None)),
    (
        "Our Q2 2024 deliveries were 400k units",
        (
            f"{SAM}'s deliveries",
            "HAS_VALUE",
            "400k units",
            {"value": 400000, "unit": "units", "period": "2024-Q2"},
            None,
        ),
    ),
    (
        "The interest rate was raised to 5.5%.",
        ("interest rate", "HAS_VALUE", "5.5%", {"value": 5.5, "unit": "percent"}, None),
    ),
    ("My rent went up to £1,400.", (f"{SAM}'s rent", "HAS_VALUE", "£1,400", {"value": 1400, "unit": "GBP"}, None)),
    (
        "The budget: €40,000 for Q1.",
        ("budget", "HAS_VALUE", "€40,000", {"value": 40000, "unit": "EUR", "period": "Q1"}, None),
    ),
    (
        "We started Project Orca last week. Project status: at risk.",
        ("Project Orca's status", "HAS_VALUE", "at risk", {"value": "at risk"}, None),
    ),
    ("The wait time is 3 weeks.", ("wait time", "HAS_VALUE", "3 weeks", {"value": 3, "unit": "weeks"}, None)),
    ("the temperature is 21 °C", ("temperature", "HAS_VALUE", "21 °C", {"value": 21, "unit": "°C"}, None)),
]

ROLES: list[tuple[str, list[Row]]] = [
    (
        "I work as a data analyst at Acme",
        [(SAM, "WORKS_AT", "Acme", {}, None), (SAM, "HAS_ROLE", "data analyst", {"organisation": "Acme"}, None)],
    ),
    (
        "Maria Lopez started as head of data at Beta Systems last month.",
        [
            ("Maria Lopez", "WORKS_AT", "Beta Systems", {}, f"2025-05-01{D}"),
            ("Maria Lopez", "HAS_ROLE", "head of data", {"organisation": "Beta Systems"}, f"2025-05-01{D}"),
        ],
    ),
    (
        "I met Tom Hale yesterday. He was promoted to senior engineer.",
        [("Tom Hale", "HAS_ROLE", "senior engineer", {}, None)],
    ),
    (
        "Tom Hale works at Initech. He was promoted to senior engineer last week.",
        [
            ("Tom Hale", "WORKS_AT", "Initech", {}, None),
            ("Tom Hale", "HAS_ROLE", "senior engineer", {"organisation": "Initech"}, f"2025-06-07{D}"),
        ],
    ),
    ("Maria has taken over as project lead", [("Maria", "HAS_ROLE", "project lead", {}, None)]),
    (
        "I joined Globex as a product manager in 2023",
        [
            (SAM, "WORKS_AT", "Globex", {}, f"2023-01-01{D}"),
            (SAM, "HAS_ROLE", "product manager", {"organisation": "Globex"}, f"2023-01-01{D}"),
        ],
    ),
    (
        "Tom was appointed CFO of Initech",
        [("Tom", "WORKS_AT", "Initech", {}, None), ("Tom", "HAS_ROLE", "CFO", {"organisation": "Initech"}, None)],
    ),
    (
        "I'm the CTO at Hooli",
        [(SAM, "WORKS_AT", "Hooli", {}, None), (SAM, "HAS_ROLE", "CTO", {"organisation": "Hooli"}, None)],
    ),
    ("Priya stepped down as chair", [("Priya", "NO_LONGER_HAS_ROLE", "chair", {}, None)]),
    (
        "Priya became VP of Engineering at Stripe in January.",
        [
            ("Priya", "WORKS_AT", "Stripe", {}, f"2025-01-01{D}"),
            ("Priya", "HAS_ROLE", "VP of Engineering", {"organisation": "Stripe"}, f"2025-01-01{D}"),
        ],
    ),
    (
        "Tom moved to Globex as a senior designer.",
        [
            ("Tom", "WORKS_AT", "Globex", {}, None),
            ("Tom", "HAS_ROLE", "senior designer", {"organisation": "Globex"}, None),
        ],
    ),
    (
        "Great news: Ana Silva now serves as chief of staff at Wayne Enterprises.",
        [
            ("Ana Silva", "WORKS_AT", "Wayne Enterprises", {}, None),
            ("Ana Silva", "HAS_ROLE", "chief of staff", {"organisation": "Wayne Enterprises"}, None),
        ],
    ),
    (
        "Last week Maria Lopez was named head of product at Vandelay Industries.",
        [
            ("Maria Lopez", "WORKS_AT", "Vandelay Industries", {}, f"2025-06-07{D}"),
            ("Maria Lopez", "HAS_ROLE", "head of product", {"organisation": "Vandelay Industries"}, f"2025-06-07{D}"),
        ],
    ),
    (
        "In January I was hired as a junior accountant by Pearson Hardman.",
        [
            (SAM, "WORKS_AT", "Pearson Hardman", {}, f"2025-01-01{D}"),
            (SAM, "HAS_ROLE", "junior accountant", {"organisation": "Pearson Hardman"}, f"2025-01-01{D}"),
        ],
    ),
    ("Omar became our new CTO.", [("Omar", "HAS_ROLE", "CTO", {}, None)]),
    (
        "Dev Patel was elected chair of the Riverside Rowing Club in 2022.",
        [
            ("Dev Patel", "MEMBER_OF", "Riverside Rowing Club", {}, f"2022-01-01{D}"),
            ("Dev Patel", "HAS_ROLE", "chair", {"organisation": "Riverside Rowing Club"}, f"2022-01-01{D}"),
        ],
    ),
    (
        "Jane Roe resigned as CEO of Hooli last Friday.",
        [("Jane Roe", "NO_LONGER_HAS_ROLE", "CEO", {"organisation": "Hooli"}, f"2025-06-13{D}")],
    ),
    (
        "Since March I have been the head of sales at Initech.",
        [
            (SAM, "WORKS_AT", "Initech", {}, f"2025-03-01{D}"),
            (SAM, "HAS_ROLE", "head of sales", {"organisation": "Initech"}, f"2025-03-01{D}"),
        ],
    ),
    (
        "Kim is the CFO of Stark Ventures.",
        [
            ("Kim", "CFO_OF", "Stark Ventures", {}, None),
            ("Kim", "HAS_ROLE", "CFO", {"organisation": "Stark Ventures"}, None),
        ],
    ),
    (
        "I got promoted to staff engineer at Shopify!",
        [
            (SAM, "WORKS_AT", "Shopify", {}, None),
            (SAM, "HAS_ROLE", "staff engineer", {"organisation": "Shopify"}, None),
        ],
    ),
    (
        "Lena took over as managing editor at The Guardian",
        [
            ("Lena", "WORKS_AT", "The Guardian", {}, None),
            ("Lena", "HAS_ROLE", "managing editor", {"organisation": "The Guardian"}, None),
        ],
    ),
    (
        "I'm now working as a nurse practitioner for Kaiser Permanente",
        [
            (SAM, "WORKS_AT", "Kaiser Permanente", {}, None),
            (SAM, "HAS_ROLE", "nurse practitioner", {"organisation": "Kaiser Permanente"}, None),
        ],
    ),
    (
        "Maya Roy joined Initech as VP of Sales two weeks ago.",
        [
            ("Maya Roy", "WORKS_AT", "Initech", {}, f"2025-05-31{D}"),
            ("Maya Roy", "HAS_ROLE", "VP of Sales", {"organisation": "Initech"}, f"2025-05-31{D}"),
        ],
    ),
]

ROLES += [
    ("Initech Labs appointed Sara Kim as CFO.", [
        ("Sara Kim", "WORKS_AT", "Initech Labs", {}, None),
        ("Sara Kim", "HAS_ROLE", "CFO", {"organisation": "Initech Labs"}, None)]),
    ("I work at Acme. We promoted Ana Lima to team lead.", [
        (SAM, "WORKS_AT", "Acme", {}, None),
        ("Ana Lima", "WORKS_AT", "Acme", {}, None),
        ("Ana Lima", "HAS_ROLE", "team lead", {"organisation": "Acme"}, None)]),
    ("Our new CFO is Maria Chen.", [("Maria Chen", "HAS_ROLE", "CFO", {}, None)]),
    ("I work as a nurse for the NHS.", [
        (SAM, "WORKS_AT", "NHS", {}, None), (SAM, "HAS_ROLE", "nurse", {"organisation": "NHS"}, None)]),
    ("Rachel Green was named creative director at Ralph Lauren.", [
        ("Rachel Green", "WORKS_AT", "Ralph Lauren", {}, None),
        ("Rachel Green", "HAS_ROLE", "creative director", {"organisation": "Ralph Lauren"}, None)]),
    ("Jonas Berg was promoted to director of operations at Volvo in March.", [
        ("Jonas Berg", "WORKS_AT", "Volvo", {}, f"2025-03-01{D}"),
        ("Jonas Berg", "HAS_ROLE", "director of operations", {"organisation": "Volvo"}, f"2025-03-01{D}")]),
    ("Lisa retired as head teacher of St Mary's School.", [
        ("Lisa", "NO_LONGER_HAS_ROLE", "head teacher", {"organisation": "St Mary's School"}, None)]),
]  # fmt: skip

VALUES += [
    ("Our budget is $250 now.", (f"{SAM}'s budget", "HAS_VALUE", "$250", {"value": 250, "unit": "USD"}, None)),
    ("the rate's 5% now", ("rate", "HAS_VALUE", "5%", {"value": 5, "unit": "percent"}, None)),
    (
        "The price of gold is $2,300 an ounce",
        ("price of gold", "HAS_VALUE", "$2,300 an ounce", {"value": 2300, "unit": "USD/ounce"}, None),
    ),
]
VALUES += [
    (
        "The central bank's policy rate is 5.25%.",
        ("central bank's policy rate", "HAS_VALUE", "5.25%", {"value": 5.25, "unit": "percent"}, None),
    ),
    (
        "The team's velocity is 34 points",
        ("team's velocity", "HAS_VALUE", "34 points", {"value": 34, "unit": "points"}, None),
    ),
    (
        "We kicked off Project Apollo. The project's budget is $40k.",
        ("Project Apollo's budget", "HAS_VALUE", "$40k", {"value": 40000, "unit": "USD"}, None),
    ),
]
VALUES += [
    (
        "Status: blocked on the API review",
        (f"{SAM}'s status", "HAS_VALUE", "blocked", {"value": "blocked"}, None),
    ),
]
ROLES += [
    ("Jane Doe is Acme's new CFO.", [
        ("Jane Doe", "WORKS_AT", "Acme", {}, None), ("Jane Doe", "HAS_ROLE", "CFO", {"organisation": "Acme"}, None)]),
    ("Omar became Initech's head of sales in May.", [
        ("Omar", "WORKS_AT", "Initech", {}, f"2025-05-01{D}"),
        ("Omar", "HAS_ROLE", "head of sales", {"organisation": "Initech"}, f"2025-05-01{D}")]),
    ("I was hired by Acme as a data engineer", [
        (SAM, "WORKS_AT", "Acme", {}, None), (SAM, "HAS_ROLE", "data engineer", {"organisation": "Acme"}, None)]),
    ("Dana took on the role of product owner at Spotify.", [
        ("Dana", "WORKS_AT", "Spotify", {}, None),
        ("Dana", "HAS_ROLE", "product owner", {"organisation": "Spotify"}, None)]),
    ("Maria is head of Engineering.", [("Maria", "HAS_ROLE", "head of Engineering", {}, None)]),
]  # fmt: skip

# no value and no role: ordinary chat that only looks like one
NEGATIVES = [
    "I work at night",
    "the rate is high",
    "status quo is fine",
    "I'm at the office",
    "I work as hard as I can",
    "he started as a joke",
    "I was named after my grandfather",
    "the rate is 5% higher than last year",
    "my son is 5",
    "my flight is at 5pm",
    "I'm the lead on this",
    "Maybe the budget is $200",
    "the rate will be 6% next year",
    "I'll start as a designer at Acme next month",
    "She wasn't promoted to manager",
    "The status is unclear",
    "her weight is 60 kg",
    "Is the rate 5%?",
    "I started as soon as I could",
    "the answer is 42",
    "we were promoted to the next level",
    "he acts as if nothing happened",
    "I work as a team with my sister",
    "I think the budget is $300",
    "I named Biscuit after my grandmother",
    "They made Tom a cup of tea",
    "my kids are 5 and 7",
    "The answer is Tom.",
    "Her salary is $90k.",
    "the churn rate is 2% monthly",
    "He serves as a reminder of what we lost.",
    "Anna became the first woman to lead the team.",
    "I was made redundant.",
    "Tom is 72 kg",
    "I'm home at Christmas.",
    "Tom's at Google.",
    "Tom's brother's weight is 80 kg",
    "the server is down",
]


@pytest.mark.parametrize(("content", "row"), VALUES, ids=[c for c, _ in VALUES])
def test_a_value_with_its_unit(content: str, row: Row) -> None:
    subject, relation, obj, attributes, valid_at = row
    assert facts(content) == {(subject, relation, obj): (attributes, valid_at)}


@pytest.mark.parametrize(("content", "rows"), ROLES, ids=[c for c, _ in ROLES])
def test_a_role_with_its_organisation(content: str, rows: list[Row]) -> None:
    found = {k: v for k, v in facts(content).items() if k[1] not in ("MET",)}
    assert found == {(s, r, o): (a, v) for s, r, o, a, v in rows}


@pytest.mark.parametrize("content", NEGATIVES)
def test_no_value_or_role_from_ordinary_chat(content: str) -> None:
    assert {k for k in facts(content) if k[1] in ("HAS_VALUE", "HAS_ROLE", "NO_LONGER_HAS_ROLE")} == set()


def test_the_fact_reads_as_a_sentence() -> None:
    (fact,) = OfflineExtractor().extract("the rate is 5.25% for 2025", reference_time=REF, speaker=SAM).facts
    assert fact.fact == "rate is 5.25% for 2025"
    role = OfflineExtractor().extract("I joined Globex as a product manager", reference_time=REF, speaker=SAM).facts
    assert {f.fact for f in role} == {f"{SAM} works at Globex", f"{SAM} is a product manager at Globex"}


def test_no_first_person_value_without_a_speaker() -> None:
    assert OfflineExtractor().extract("my weight is 72 kg", reference_time=REF, kind="text").facts == []


def _current(memory: Memory, relation: str) -> list[tuple[str, str, dict[str, Any]]]:
    return [(f.subject, f.object, f.attributes) for f in memory.facts("g", relation=relation)]


def test_a_new_value_replaces_the_old_one() -> None:
    with Memory(":memory:", model=None) as memory:
        memory.add_episode("g", "our budget is $190", reference_time="2025-01-10T09:00Z", speaker=SAM)
        memory.add_episode("g", "our budget is now $250", reference_time="2025-03-10T09:00Z", speaker=SAM)
        now = _current(memory, "HAS_VALUE")
        then = [(f.object, f.attributes) for f in memory.facts("g", relation="HAS_VALUE", as_of="2025-02-01T00:00Z")]
    assert now == [(f"{SAM}'s budget", "$250", {"value": 250, "unit": "USD"})]
    assert then == [("$190", {"value": 190, "unit": "USD"})]


def test_values_of_two_periods_stand_side_by_side_and_one_period_is_corrected() -> None:
    with Memory(":memory:", model=None) as memory:
        memory.add_episode("g", "Acme's revenue was $3.2 million in Q2 2025", reference_time="2025-07-10T09:00Z")
        memory.add_episode("g", "Acme's revenue was $3.5 million in Q3 2025", reference_time="2025-10-10T09:00Z")
        memory.add_episode("g", "Correction: Acme's revenue was $3.3 million in Q2 2025",
                           reference_time="2025-10-12T09:00Z")
        now = sorted((f.qualifiers["period"], f.object) for f in memory.facts("g", relation="HAS_VALUE"))
        q2 = memory.facts("g", relation="HAS_VALUE", qualifiers={"period": "2025-Q2"}, include_retired=True)
    assert now == [("2025-Q2", "$3.3 million"), ("2025-Q3", "$3.5 million")]
    assert sorted(f.object for f in q2) == ["$3.2 million", "$3.3 million"]


def test_a_promotion_replaces_the_role_and_keeps_the_job() -> None:
    with Memory(":memory:", model=None) as memory:
        memory.add_messages(
            "g",
            [
                {"role": "user", "content": "I work as an engineer at Acme", "created_at": "2024-01-05T10:00Z"},
                {"role": "user", "content": "I was promoted to senior engineer!", "created_at": "2025-02-03T10:00Z"},
            ],
            thread="t1",
            user_name=SAM,
        )
        roles = _current(memory, "HAS_ROLE")
        jobs = _current(memory, "WORKS_AT")
        before = [f.object for f in memory.facts("g", relation="HAS_ROLE", as_of="2024-06-01T00:00Z")]
    assert roles == [(SAM, "senior engineer", {"organisation": "Acme"})]
    assert jobs == [(SAM, "Acme", {})]
    assert before == ["engineer"]


def test_stepping_down_ends_the_role() -> None:
    with Memory(":memory:", model=None) as memory:
        memory.add_episode(
            "g", "Priya Shah was elected chair of the Hill Rowing Club.", reference_time="2024-01-05T10:00Z"
        )
        memory.add_episode("g", "Priya Shah stepped down as chair.", reference_time="2025-01-05T10:00Z")
        roles = _current(memory, "HAS_ROLE")
    assert roles == []


def test_leaving_the_organisation_ends_the_role_held_there() -> None:
    with Memory(":memory:", model=None) as memory:
        memory.add_messages(
            "g",
            [
                {"role": "user", "content": "I'm the CTO at Hooli", "created_at": "2024-01-05T10:00Z"},
                {"role": "user", "content": "I left Hooli last week", "created_at": "2025-02-03T10:00Z"},
            ],
            thread="t1",
            user_name=SAM,
        )
        roles = _current(memory, "HAS_ROLE")
        jobs = _current(memory, "WORKS_AT")
        held = [f.object for f in memory.facts("g", relation="HAS_ROLE", as_of="2024-06-01T00:00Z")]
    assert (roles, jobs, held) == ([], [], ["CTO"])


def test_leaving_in_the_same_message_ends_the_role() -> None:
    found = facts("I'm the CTO at Hooli. Yesterday I left Hooli.")
    assert found[(SAM, "NO_LONGER_HAS_ROLE", "CTO")] == ({"organisation": "Hooli"}, f"2025-06-13{D}")
