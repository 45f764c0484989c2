"""Words that are names in a known slot even when typed in lower case:
languages ("i speak spanish") and tools ("we run on gcp", "i write python")."""

from __future__ import annotations

__all__ = [
    "BRANDS",
    "CONDITIONS",
    "FRAMEWORKS",
    "JOBS",
    "TECH_NOUNS",
    "WORKPLACE_NOUNS",
    "is_job",
    "LANGUAGES",
    "LANGUAGE_QUALIFIERS",
    "MAKES",
    "PROGRAMMING",
    "TECH",
    "VEHICLES",
    "INSTRUMENTS",
]

LANGUAGES = frozenset(
    """
    english spanish portuguese french german italian dutch swedish norwegian danish finnish icelandic polish czech
    slovak hungarian romanian bulgarian greek turkish russian ukrainian serbian croatian arabic hebrew persian farsi
    urdu hindi bengali punjabi tamil telugu marathi gujarati japanese korean chinese mandarin cantonese vietnamese
    thai indonesian malay tagalog filipino swahili yoruba igbo hausa amharic zulu afrikaans catalan basque galician
    welsh irish latin esperanto estonian latvian lithuanian kannada malayalam nepali sinhala khmer lao burmese
    mongolian kazakh uzbek georgian armenian azerbaijani albanian macedonian slovenian bosnian maltese
    luxembourgish somali twi akan wolof xhosa shona kinyarwanda quechua guarani hawaiian maori samoan tongan
    gaelic cornish breton sindhi pashto dari kurdish tigrinya oromo lingala
    """.split()
)
# the words that make one language of two: "swiss german", "brazilian portuguese"
LANGUAGE_QUALIFIERS = frozenset(
    "swiss brazilian european canadian mexican castilian egyptian levantine moroccan gulf scottish sign".split()
)
# lower-case names of tools, typed as often in lower case as not ("we run on gcp", "i write python")
PROGRAMMING = frozenset(
    """
    python java javascript typescript rust go golang ruby php perl scala kotlin swift elixir erlang haskell clojure
    julia dart lua sql fortran cobol ocaml matlab
    """.split()
)
TECH = PROGRAMMING | frozenset(
    """
    aws gcp azure kubernetes k8s docker terraform ansible kafka spark airflow snowflake bigquery redshift databricks
    postgres postgresql mysql sqlite mongodb mongo redis elasticsearch opensearch cassandra dynamodb supabase firebase
    django flask fastapi rails laravel spring node nodejs react vue svelte angular nextjs jquery tailwind graphql
    grafana prometheus datadog sentry jenkins github gitlab bitbucket jira confluence linear notion slack figma
    vercel netlify heroku cloudflare hetzner digitalocean linux ubuntu debian windows macos ios android iphone pixel
    neovim vim emacs vscode excel tableau looker dbt pandas pytorch tensorflow pulumi ecs eks gke lambda splunk
    loki circleci buildkite dagster prefect pyspark jupyter kibana honeycomb argocd helm nomad vault consul
    clickhouse duckdb pinecone mlflow sagemaker vertex zoom moodle xero quickbooks freeagent trello asana evernote
    obsidian todoist discord whatsapp duolingo godot unity unreal blender photoshop illustrator procreate canva
    ableton cubase garageband reaper lightroom premiere davinci finalcut sibelius musescore autocad revit sketchup
    archicad scrivener qgis arcgis stata spss nvivo zotero overleaf
    """.split()
)
CONDITIONS = frozenset(
    """
    asthma diabetes adhd autism celiac coeliac migraines migraine anxiety depression epilepsy arthritis eczema
    psoriasis endometriosis pcos ibs crohn's dyslexia insomnia tinnitus hypertension covid long-covid lupus
    """.split()
)
# the makers whose next word is a model's name: "my fiat panda", "a Honda Civic"
MAKES = frozenset(
    """
    tesla bmw audi mercedes toyota honda ford volvo volkswagen vw kia hyundai nissan mazda subaru porsche fiat skoda
    peugeot renault vespa ducati yamaha kawasaki harley suzuki mitsubishi citroen citroën opel dacia lexus jeep
    chevrolet chevy dodge gmc holden isuzu polaris
    """.split()
)
BRANDS = MAKES | frozenset("macbook iphone ipad kindle pixel thinkpad playstation xbox".split())
# what one owns and names by its kind alone: "we bought a caravan", "i have a motorbike"
VEHICLES = frozenset(
    "car caravan campervan motorhome van motorbike motorcycle scooter e-bike ebike boat canoe kayak".split()
)
# what one plays, owns and learns: "bought a ukulele", "learning the cello"
INSTRUMENTS = frozenset(
    """
    ukulele guitar piano violin cello viola bass drums saxophone sax trumpet trombone flute clarinet oboe harp banjo
    mandolin accordion harmonica keyboard bagpipes oud sitar tabla
    """.split()
)
# what a speaker's system is called: "our backend runs on X" is the speaker's tool
TECH_NOUNS = frozenset(
    """
    backend frontend stack app apps api apis infra infrastructure site website database databases db pipeline
    pipelines service services platform codebase product system systems server servers cluster clusters
    warehouse data analytics monitoring ci deploys deployment search auth
    """.split()
)
# where a speaker works, whose tools are the speaker's: "the school switched to Teams", "the ward uses X"
WORKPLACE_NOUNS = frozenset("team school office ward lab firm practice clinic surgery department unit".split())
# what someone is "in" a place as: "Lina is a vet in Bristol", "it's a small startup in Toronto"
JOBS = frozenset(
    """
    vet nurse doctor gp teacher engineer developer dev designer lawyer solicitor barrister chef cook dentist pharmacist
    cardiologist surgeon guide
    accountant consultant manager analyst scientist researcher professor lecturer student architect journalist
    writer artist musician pilot driver paramedic firefighter officer policeman policewoman plumber electrician
    barista waiter waitress baker farmer surgeon therapist psychologist psychiatrist midwife carer cleaner librarian
    priest vicar rabbi imam banker trader recruiter programmer physio physiotherapist optician tutor coach trainer
    nanny receptionist administrator technician mechanic worker officer builder carpenter translator editor photographer
    associate paralegal clerk intern assistant director coordinator supervisor specialist eng swe sre
    bassist guitarist drummer pianist singer violinist cellist saxophonist
    startup company firm agency business bank charity nonprofit school university college hospital clinic practice
    restaurant shop store brewery bakery cafe studio lab
    """.split()
)
# how job names end, for the many no list holds: "glaciologist", "dietician", "videographer", "youth worker"
_JOB_ENDINGS = ("ologist", "ician", "ographer", "worker", "keeper", "smith", "monger", "wright")


def is_job(word: str, words: frozenset[str]) -> bool:
    """Whether ``word`` ends a title of ``words``; for :data:`JOBS`, also a word built as a job's name is."""
    return word in words or (words is JOBS and word.endswith(_JOB_ENDINGS) and len(word) > 5)

# the frameworks one writes code in: "i write django for the backend"
FRAMEWORKS = frozenset(
    "django flask fastapi rails laravel react vue svelte angular nextjs jquery pytorch tensorflow pandas numpy spark "
    "pyspark flutter swiftui jetpack unity godot".split()
)
