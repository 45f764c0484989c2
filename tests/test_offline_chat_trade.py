"""The offline extractor on working life and health said in passing: job titles
with what the job is done on, jobs named by their ending, jobs taken, transfers,
customers, equipment named by its maker, hires, where a workplace or a farm is,
ties with no possessive or a lower-case one, clients of a vet or a GP, homes,
births and intolerances; and still nothing from plans, offers, negations and
sales."""

from __future__ import annotations

import pytest

from .offline_thread_reading import SAM, facts

# -- jobs ----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("content", "org"),
    [
        ("i'm sam, first officer on the A320 at Highveld Air", "Highveld Air"),
        ("I'm a nurse in the ICU at Leeds General", "Leeds General"),
        ("engineer on the payments team at Stripe", "Stripe"),
        ("i'm sam, an architect at Kubbe Studio", "Kubbe Studio"),
        ("Sam here, a teacher in the maths department at Hillcrest Academy", "Hillcrest Academy"),
    ],
)
def test_a_job_with_what_it_is_done_on_before_the_workplace(content: str, org: str) -> None:
    assert (SAM, "WORKS_AT", org) in facts(content)


@pytest.mark.parametrize(
    ("content", "who", "org"),
    [
        ("Katla is a glaciologist at the University of Iceland", "Katla", "University of Iceland"),
        ("social worker with Leeds City Council, been there 4 yrs", SAM, "Leeds City Council"),
        ("i'm a videographer at Northlight Media", SAM, "Northlight Media"),
        ("Ana is a beekeeper at Hillside Farm", "Ana", "Hillside Farm"),
    ],
)
def test_a_job_named_by_its_ending(content: str, who: str, org: str) -> None:
    assert (who, "WORKS_AT", org) in facts(content)


def test_a_job_word_is_not_any_word_with_a_job_ending() -> None:
    assert not any(r == "WORKS_AT" for _, r, _ in facts("she's a specialist, not a generalist"))


def test_the_workplace_of_a_job_appositive_is_located() -> None:
    found = facts("I'm Sam, an architect at Kubbe Studio in Istanbul")
    assert {(SAM, "WORKS_AT", "Kubbe Studio"), ("Kubbe Studio", "LOCATED_IN", "Istanbul")} <= found
    assert (SAM, "WORKS_IN", "Istanbul") not in found  # that would outlive leaving the studio


@pytest.mark.parametrize(
    ("content", "who", "org"),
    [
        ("i got a job at Acme Corp", SAM, "Acme Corp"),
        ("she landed a new role at Monzo", None, "Monzo"),
        ("Vikram took an offer at Swiggy", "Vikram", "Swiggy"),
        ("Priya accepted a job offer from Stripe", "Priya", "Stripe"),
        ("Hildur got me a teaching gig at the Reykjavik College of Music", SAM, "Reykjavik College of Music"),
    ],
)
def test_a_job_taken(content: str, who: str | None, org: str) -> None:
    found = facts(content)
    if who is None:
        assert not found  # "she" with no one named before
    else:
        assert (who, "WORKS_AT", org) in found


@pytest.mark.parametrize(
    "content",
    [
        "got an offer from Kinova for winter!",
        "i'm thinking of getting a job at Google",
        "I didn't take the job at Acme",
        "Tom says he got a job at Meta",
    ],
)
def test_an_offer_a_plan_a_negation_or_hearsay_is_no_job(content: str) -> None:
    assert not any(r == "WORKS_AT" for _, r, _ in facts(content))


@pytest.mark.parametrize(
    ("content", "who", "place"),
    [
        ("Jomar got transferred to the Manila site", "Jomar", "Manila"),
        ("Tom was posted to the Glasgow office", "Tom", "Glasgow"),
        ("dr. Pia Sorensen from the Menomonie clinic came out", "Pia Sorensen", "Menomonie"),
        ("Tom from the Leeds office called", "Tom", "Leeds"),
    ],
)
def test_where_someone_works_by_a_named_site(content: str, who: str, place: str) -> None:
    assert (who, "WORKS_IN", place) in facts(content)


# -- a business: customers, equipment, staff, place ----------------------------------------------


@pytest.mark.parametrize(
    ("content", "customer"),
    [
        ("our milk goes to Kickapoo Valley Creamery", "Kickapoo Valley Creamery"),
        ("all our lambs are sold to Dunbia", "Dunbia"),
        ("we supply Tesco", "Tesco"),
        ("we sell to Waitrose these days", "Waitrose"),
        ("we ship our cheese to Paxton & Whitfield", "Paxton & Whitfield"),
    ],
)
def test_a_customer(content: str, customer: str) -> None:
    assert (SAM, "SUPPLIES", customer) in facts(content)


def test_a_customer_dropped_and_one_taken_instead() -> None:
    found = facts("we stopped shipping to Kickapoo Valley, switched to Foremost Farms")
    assert (SAM, "NO_LONGER_SUPPLIES", "Kickapoo Valley") in found
    assert (SAM, "SUPPLIES", "Kickapoo Valley") not in found


@pytest.mark.parametrize(
    "content", ["we're thinking of supplying Aldi", "we don't sell to Tesco", "do you supply Lidl?"]
)
def test_no_customer_from_a_plan_a_negation_or_a_question(content: str) -> None:
    assert not any(r == "SUPPLIES" for _, r, _ in facts(content))


@pytest.mark.parametrize(
    ("content", "maker"),
    [
        ("we milk with a DeLaval robot", "DeLaval"),
        ("i shoot with a Fuji camera mostly", "Fuji"),
        ("we run a Lely system", "Lely"),
        ("they use two Fendt tractors", None),
        ("I fly a Cessna 172 at the club", "Cessna"),
    ],
)
def test_equipment_named_by_its_maker(content: str, maker: str | None) -> None:
    found = facts(content)
    if maker is None:
        assert not found  # "they" with no one named before
    else:
        assert (SAM, "USES", maker) in found


@pytest.mark.parametrize(
    "content",
    [
        "thinking about adding a second robot next year, maybe a Lely this time",
        "we don't run a Lely system",
        "rosewood had a Lely system",
    ],
)
def test_no_equipment_from_a_plan_a_negation_or_someone_unknown(content: str) -> None:
    assert not any(r == "USES" for _, r, _ in facts(content))


@pytest.mark.parametrize(
    ("content", "hired"),
    [
        ("so we hired a guy, Luis Ortega", "Luis Ortega"),
        ("we took on a new apprentice, Jo Reyes", "Jo Reyes"),
        ("i hired Maria to do the books", "Maria"),
    ],
)
def test_someone_hired(content: str, hired: str) -> None:
    assert (SAM, "EMPLOYS", hired) in facts(content)


def test_no_hire_from_a_plan() -> None:
    assert not facts("we might hire someone, maybe Luis")


@pytest.mark.parametrize(
    ("content", "relation", "place"),
    [
        ("i run a dairy farm outside Eau Claire", "LIVES_IN", "Eau Claire"),
        ("we own a sheep farm near Tregaron", "LIVES_IN", "Tregaron"),
        ("i run a bakery in Leeds", "WORKS_IN", "Leeds"),
        ("I own a hair salon just outside Cork", "WORKS_IN", "Cork"),
    ],
)
def test_where_a_business_is_run(content: str, relation: str, place: str) -> None:
    assert (SAM, relation, place) in facts(content)


# -- people --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("content", "relation", "name"),
    [
        ("wife Lerato thinks i'll never get there lol", "MARRIED_TO", "Lerato"),
        ("so hubby Tom says no", "MARRIED_TO", "Tom"),
        ("long week. daughter Mia has the flu", "PARENT_OF", "Mia"),
        ("and boss Helen wants it by friday", "REPORTS_TO", "Helen"),
    ],
)
def test_a_tie_with_no_possessive_at_a_clause_start_is_the_speakers(content: str, relation: str, name: str) -> None:
    assert (SAM, relation, name) in facts(content)


@pytest.mark.parametrize("content", ["Sister Mary teaches us", "i met friend Tom", "vet Pia came out"])
def test_no_bare_tie_from_a_title_mid_clause_or_a_non_family_noun(content: str) -> None:
    assert not facts(content)


def test_a_lower_case_possessor_named_before() -> None:
    found = facts("my husband Tom is great, and tom's brother Gary helps on weekends")
    assert ("Tom", "SIBLING_OF", "Gary") in found


@pytest.mark.parametrize(
    ("content", "name"),
    [
        ("Pia Sorensen is our vet", "Pia Sorensen"),
        ("our vet Pia Sorensen came out", "Pia Sorensen"),
        ("my GP, Dr Shah, said no", "Shah"),
        ("my accountant Ruth Lee does it all", "Ruth Lee"),
    ],
)
def test_a_client_of_a_vet_a_gp_an_accountant(content: str, name: str) -> None:
    assert (SAM, "CLIENT_OF", name) in facts(content)


@pytest.mark.parametrize("content", ["the doctor asked me twice", "my doctor says I should rest", "our old vet Tom"])
def test_no_client_without_a_name_or_of_a_former_one(content: str) -> None:
    assert not any(r == "CLIENT_OF" for _, r, _ in facts(content))


def test_a_team_lead() -> None:
    assert (SAM, "COLLEAGUE_OF", "Jomar") in facts("my team lead is Jomar, strict but fair")


@pytest.mark.parametrize(
    ("content", "place"),
    [
        ("we like our machiya in Nishijin too much", "Nishijin"),
        ("our flat in Leith is tiny", "Leith"),
        ("love my little cottage in Hebden Bridge", "Hebden Bridge"),
    ],
)
def test_our_home_in_a_place(content: str, place: str) -> None:
    assert (SAM, "LIVES_IN", place) in facts(content)


@pytest.mark.parametrize("content", ["we sold our house in Leeds", "i miss my flat in Leith"])
def test_no_home_once_sold_or_missed(content: str) -> None:
    assert not any(r == "LIVES_IN" for _, r, _ in facts(content))


@pytest.mark.parametrize(
    ("content", "baby", "place"),
    [
        ("Naledi was born at Netcare Sunninghill", "Naledi", "Netcare Sunninghill"),
        ("Leo was born last night at St Mary's Hospital", "Leo", "St Mary's Hospital"),
        ("Ava was born yesterday at Rosie Hospital", "Ava", "Rosie Hospital"),
    ],
)
def test_born_at_a_hospital(content: str, baby: str, place: str) -> None:
    assert (baby, "BORN_AT", place) in facts(content)


# -- health --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("content", "what"),
    [
        ("funny thing, i'm lactose intolerant", "Lactose"),
        ("I'm very gluten intolerant", "Gluten"),
        ("i'm intolerant to fructose", "fructose"),
    ],
)
def test_an_intolerance(content: str, what: str) -> None:
    assert (SAM, "INTOLERANT_TO", what) in facts(content)


def test_no_intolerance_denied() -> None:
    assert not facts("i'm not lactose intolerant, just picky")


# -- chat punctuation ----------------------------------------------------------------------------


def test_an_emoji_ends_a_sentence() -> None:
    found = facts("don't ask 😂 also i switched from ForeFlight to Garmin Pilot")
    assert {(SAM, "USES", "Garmin Pilot"), (SAM, "NO_LONGER_USES", "ForeFlight")} <= found


# -- where an organisation is --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("content", "org", "place"),
    [
        ("yep, a Cessna 172 at the Rand Flying Club in Germiston", "Rand Flying Club", "Germiston"),
        ("she's a pharmacist at Leeds General Infirmary in Leeds", "Leeds General Infirmary", "Leeds"),
        ("we might join the Harbour Rowing Club in Cobh", "Harbour Rowing Club", "Cobh"),
        ("Tom went to Acme Bank in Zurich", "Acme Bank", "Zurich"),
    ],
)
def test_an_organisation_in_a_place(content: str, org: str, place: str) -> None:
    assert (org, "LOCATED_IN", place) in facts(content)


@pytest.mark.parametrize(
    "content", ["we went to Acme Bank in Leeds Road", "I joined Google in 2019", "Tom was at Acme Labs in March"]
)
def test_no_place_from_a_street_a_year_or_a_month(content: str) -> None:
    assert not any(r == "LOCATED_IN" for _, r, _ in facts(content))


@pytest.mark.parametrize(
    ("content", "who", "org", "place"),
    [
        ("kenji moved to the National Diet Library in Tokyo", "Kenji", "National Diet Library", "Tokyo"),
        ("Ana moved to Helix Labs in Boston", "Ana", "Helix Labs", "Boston"),
    ],
)
def test_a_move_to_an_organisation_is_a_job_in_its_town(content: str, who: str, org: str, place: str) -> None:
    found = facts(content)
    assert {(who, "WORKS_AT", org), (who, "LIVES_IN", place)} <= found
    assert (who, "LIVES_IN", org) not in found


# -- pets and babies named in the next sentence, and whose they are --------------------------------


@pytest.mark.parametrize(
    ("content", "name"),
    [
        ("we adopted a dog!! a border collie named Skuggi", "Skuggi"),
        ("we got a puppy! a little beagle called Max", "Max"),
        ("i rescued a cat. a tabby called Pip.", "Pip"),
    ],
)
def test_a_pet_named_by_its_breed_in_the_next_sentence(content: str, name: str) -> None:
    assert (SAM, "HAS_PET", name) in facts(content)


@pytest.mark.parametrize(
    "content",
    [
        "my girlfriend Katla and i adopted a dog!! a border collie named Skuggi",
        "Katla and I adopted a dog named Skuggi",
        "Katla and i got a puppy, Skuggi",
    ],
)
def test_a_pet_adopted_together_is_both_of_ours(content: str) -> None:
    assert {(SAM, "HAS_PET", "Skuggi"), ("Katla", "HAS_PET", "Skuggi")} <= facts(content)


def test_a_pet_of_mine_is_not_the_others() -> None:
    assert ("Tom", "HAS_PET", "Rex") not in facts("Tom and I love my dog Rex")


# -- where the speaker's employer is, and the code they write ------------------------------------


@pytest.mark.parametrize(
    ("content", "org", "place"),
    [
        ("sam here, cofounder of Tiffinly, we do office lunch subscriptions in bangalore", "Tiffinly", "Bangalore"),
        ("I work at Acme Corp. we make furniture in Leeds", "Acme Corp", "Leeds"),
        ("I'm the CEO of Brightwave. we sell solar panels across Kenya", "Brightwave", "Kenya"),
    ],
)
def test_what_we_do_in_a_place_places_the_employer(content: str, org: str, place: str) -> None:
    assert (org, "BASED_IN", place) in facts(content)


@pytest.mark.parametrize(
    "content", ["we do yoga in the park", "we make dinner in the evening", "i'm Sam, sister of Tom. we do it in Leeds"]
)
def test_no_employer_place_without_an_employer_or_a_place(content: str) -> None:
    assert not any(r == "BASED_IN" for _, r, _ in facts(content))


@pytest.mark.parametrize(
    ("content", "framework"),
    [
        ("i write django for the backend", "Django"),
        ("she writes mostly react these days", "React"),
        ("i code in flutter", "Flutter"),
    ],
)
def test_a_framework_written(content: str, framework: str) -> None:
    who = SAM if content.startswith("i") else None
    found = facts(content)
    assert (who, "USES", framework) in found if who else not found


@pytest.mark.parametrize(
    ("content", "relation", "name", "then"),
    [
        (
            "i have a girlfriend now 😊 Inês, she's a nurse at Hospital de Santa Maria",
            "DATING",
            "Inês",
            ("Inês", "WORKS_AT", "Hospital de Santa Maria"),
        ),
        ("i have a boyfriend now. Tom, he works at Google", "DATING", "Tom", ("Tom", "WORKS_AT", "Google")),
        ("we had a baby! Leo, he's perfect", "PARENT_OF", "Leo", None),
    ],
)
def test_a_name_given_then_spoken_of(content: str, relation: str, name: str, then: tuple[str, str, str] | None) -> None:
    found = facts(content)
    assert (SAM, relation, name) in found
    assert then is None or then in found


def test_a_name_in_a_sentence_that_goes_on_is_not_the_one_waited_for() -> None:
    assert ("Sam Carter", "DATING", "Tom") not in facts("i have a girlfriend now. Tom said she's lovely")


def test_a_named_business_owned_is_no_workplace_town() -> None:
    found = facts("Björn owns the Polar Light Hotel in Tromsø")
    assert ("Björn", "OWNS", "Polar Light Hotel") in found
    assert not any(r in ("WORKS_IN", "LOCATED_IN") for _, r, _ in found)  # the owning clause read the hotel


@pytest.mark.parametrize(
    "content",
    [
        "almost took a job at Canva but said no",
        "i nearly accepted an offer from Stripe",
        "she nearly got a job at Meta",
    ],
)
def test_a_job_almost_taken_is_none(content: str) -> None:
    assert not any(r == "WORKS_AT" for _, r, _ in facts(content))
