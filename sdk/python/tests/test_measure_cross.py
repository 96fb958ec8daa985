"""The Python measurement against the TypeScript one, field for field: every labelled chain of
test/fixtures/measurement/chains.json, the worked examples of docs/measurement.md, and
generated cases (seeded) that walk the tokeniser's corners. Long because the generator of those
cases (`generated`) writes out every corner it walks, one kind of input after another."""

from __future__ import annotations

import base64
import json
import random
import re
import subprocess
from typing import Callable

import pytest
from conftest import FIXTURES, REPO, SDK

from floorline._measure import measure_detailed

TSX = REPO / "node_modules" / ".bin" / "tsx"

VALUES = (
    "10,000 4.50 #4412 $5 €12 £3 97% 4GB 5000ms 2nd 3rd 0.50 -7 +3 1e5 2.5E-3 007 1_000 12,34 "
    "2026-05-02 2026/05/02 02.05.2026 05/02/2026 13/02/2026 2026-11-30T10:00:07Z 2026-11-30T10:00:07.120+05:30 "
    "10:00 10:00:00 10:00:29Z 23:59:60 2pm 12am 10:00-10:29 25:00 v2 V3.1 3.9.0 1.2.3-rc.1 20.9 "
    "3f2a9c1d8e7b 123e4567-e89b-12d3-a456-426614174000 sha256:abcdef0123456789 md5:0a1b2c3d4e5f "
    "10.0.3.17 10.0.3.17:8080 256.1.1.1 https://x.io/a/ www.example.com/path ops@example.com a@b "
    "--dry-run -v /v1/export ./a ~/x ../up src/app.ts C:\\x\\y r1000 A-1189 get_orders Node.js UTC+5:45 "
    "status=200 ms=53 path=/orders id=r1001 level=error size=4gb user's don't 'quoted' x=y=z "
    "4.2M $1.2B 12.4k 10K 3bn 5m 4B €3.9M 1e25 -0.0e3 1.2e-30 2026-04 2026-05 2026-13 1,204,88412.50 12:00:05,118 10,000,000 "
    "Parquet-Export CSV-Zeitzonen payments-db state-of-the-art x-Ray -dash- A-B-C % 100 % USD EUR € £ GBP usd"
).split(" ")
WORDS = (
    "Parquet CSV PostgreSQL Postgres deploy failed scheduler memory leak jobs queued export migrate "
    "various topics document discusses overview information the a of and to in is it summary "
    "request timeout payment gateway answered disk full node shard query order customer items "
    "gas ops abs bus's data's queries classes status analysis GPUs million billion thousand April "
    "der die und für mit Speicherleck Unterstützung Zeitzonen Endpunkt Jobs Version"
).split(" ")
UNICODE = ["café", "日本語", "🚀", "naïve", "\u00a0", "—", "…", "«x»", "\ufeff", "x\u2009y", "Ünïcödé", "𝔘nicode",
           "最大8 GB", "（#5120）", "5.1を", "リリースしました。", "20,000件以上", "、", "！", "ｶﾀｶﾅ", "/v1/exportは",
           "USD 1.5 million", "EUR 3 billion EUR", "€ 4.2 thousand", "4.2 million USD", "$3 million"]
GERMAN = [
    "Version 5.1 erscheint am 12.03.2026 mit Export nach Parquet und Unterstützung für PostgreSQL 16.",
    "Behoben wurde ein Speicherleck im Scheduler bei mehr als 20000 Jobs und die falsche Zeitzone im CSV-Export.",
    "Der Endpunkt /v1/export ist entfernt, bitte den Endpunkt /v2/export verwenden, die Mindestversion ist Node.js 22.",
    "Das Dokument behandelt verschiedene Themen und die Version enthält Verbesserungen für alle Nutzer.",
]
PUNCT = [". ", ", ", "; ", ": ", "! ", "? ", " (", ") ", " [", "] ", " \"", "\" ", " '", " | ", " * ", "\n", "\n\n", "  "]
LEVELS = ["INFO", "ERROR", "WARN", "DEBUG", "FATAL", "[error]", "level=error", "Traceback", "TypeError:", "failed", "panic"]
UNITS = ["GB", "gigabytes", "ms", "seconds", "percent", "s", "h", "x", "k", "am", "pm", "jobs", "files"]
MONTHS = ["May", "Jan", "sept", "December", "Oct."]


def sentence(rng: random.Random) -> str:
    parts = []
    for _ in range(rng.randint(1, 12)):
        roll = rng.random()
        if roll < 0.35:
            parts.append(rng.choice(VALUES))
        elif roll < 0.7:
            parts.append(rng.choice(WORDS))
        elif roll < 0.78:
            parts.append(rng.choice(UNICODE))
        elif roll < 0.86:
            parts.append(f"{rng.randint(1, 31)} {rng.choice(UNITS)}")
        elif roll < 0.92:
            parts.append(f"{rng.choice(MONTHS)} {rng.randint(1, 31)}, {rng.randint(1990, 2030)}")
        else:
            parts.append(rng.choice(PUNCT))
    return " ".join(parts) + rng.choice([".", "!", "?", "", ";"])


def log_text(rng: random.Random) -> str:
    lines = []
    for i in range(rng.randint(2, 12)):
        level = rng.choice(LEVELS)
        lines.append(f"2026-11-30T10:00:{i:02d}Z {level} api request id=r{1000 + i} path=/orders status={rng.choice([200, 200, 500])} ms={rng.randint(10, 90)}")
    return "\n".join(lines)


def text(rng: random.Random) -> str:
    if rng.random() < 0.3:
        return log_text(rng)
    if rng.random() < 0.1:
        return " ".join(rng.sample(GERMAN, k=rng.randint(1, 4)))
    return " ".join(sentence(rng) for _ in range(rng.randint(1, 6)))


def json_value(rng: random.Random, depth: int = 0):
    roll = rng.random()
    if depth > 3 or roll < 0.45:
        return rng.choice([rng.randint(-5, 10**6), rng.random() * 100, True, False, None, rng.choice(VALUES), rng.choice(WORDS), sentence(rng), rng.choice(UNICODE)])
    if roll < 0.7:
        return [json_value(rng, depth + 1) for _ in range(rng.randint(0, 4))]
    return {rng.choice(["id", "sku", "name", "items", "status", "price", "customer", "a.b", "x", rng.choice(WORDS)]): json_value(rng, depth + 1) for _ in range(rng.randint(0, 5))}


def mutate(rng: random.Random, source: str) -> str:
    roll = rng.random()
    words = source.split(" ")
    if roll < 0.25:
        return " ".join(w for w in words if rng.random() < 0.6)
    if roll < 0.4:
        return " ".join(words[: max(1, len(words) // 3)]) * rng.randint(1, 3)
    if roll < 0.55:
        return "The document discusses various topics. " + " ".join(rng.sample(words, k=min(len(words), 4)))
    if roll < 0.7:
        return text(rng)
    if roll < 0.8:
        return source.replace("\n", " ")
    if roll < 0.86:
        first = source.split("\n")[0]
        return (" " if rng.random() < 0.5 else "\n").join([first] * rng.randint(2, 4))
    return source


def marker(rng: random.Random, key: str) -> str:
    return rng.choice([f"[5 items compressed to 1. Retrieve more: hash={key}]", f"<<ccr:{key}>>", f"hash={key.upper()}", f"hash={key}0"])


def generated(count: int = 1600) -> list[dict]:
    rng = random.Random(20261201)
    cases: list[dict] = []
    for n in range(count):
        kind = n % 8
        if kind in (0, 1, 2):
            source = text(rng)
            content = mutate(rng, source)
            case = {"content": content, "source": source, "format": rng.choice(["text", "any"])}
            if rng.random() < 0.3:
                key = f"{rng.getrandbits(64):016x}"
                case["content"] += " " + marker(rng, key)
                case["originals"] = {key: rng.choice([source, text(rng), ""])}
        elif kind == 3:
            case = {"content": text(rng), "format": rng.choice(["text", "any"])}
        elif kind in (4, 5):
            doc = json_value(rng)
            source = json.dumps(doc, ensure_ascii=rng.random() < 0.5)
            content_doc = doc
            if isinstance(doc, dict) and doc and rng.random() < 0.6:
                content_doc = {k: v for k, v in doc.items() if rng.random() < 0.6}
            content = json.dumps(content_doc, separators=(",", ":")) if rng.random() < 0.8 else source[: len(source) // 2]
            case = {"content": content, "source": source if rng.random() < 0.8 else None, "format": rng.choice(["json", "any", "text"])}
            if rng.random() < 0.5:
                case["required_fields"] = rng.sample(["id", "items[].sku", "items.0", "customer.id", "status", "a", "items", "[].id", "[]"], k=rng.randint(1, 3))
        elif kind == 6:
            plain = rng.choice([text(rng), json.dumps(json_value(rng))])
            raw = plain.encode("utf-8")
            if rng.random() < 0.3:
                raw = raw[: rng.randint(0, len(raw))] + bytes([rng.choice([0x80, 0xC0, 0xED, 0xF5, 0xFF])])
            if rng.random() < 0.1:
                raw = bytes(rng.getrandbits(8) for _ in range(rng.choice([9, 12, 30, 47, 48, 60])))
            encoded = base64.b64encode(raw).decode()
            if rng.random() < 0.15:
                encoded = base64.b64encode(encoded.encode()).decode()
            if rng.random() < 0.15:
                encoded = encoded.rstrip("=")
            source = rng.choice([None, text(rng), plain, base64.b64encode(plain.encode("utf-8")).decode()])
            case = {"content": encoded, "source": source, "format": rng.choice(["base64", "any"])}
        else:
            odd = rng.choice(["", " ", "\n", "{", "[1, 2,]", '{"a": NaN}', "\ud800 lone", "x" * 200, "0123456789abcdef" * 2, "QUJDREVGR0hJSktMTU5PUA==", "   {\"a\":1}", "9" * 30,
                              "0123456789ABCDEF" * 4, "Internationalization", "RequestId4Xyz7Abc9Q0", "AAAAAAAAAAAAAAAA", "YWJj" * 20, "abcdefgh12345678", "ABCDEFGHabcdefgh", "abcd+efgh/ijklmn", "ABCDabcdABCDab==", '{"k\\u0001":"v\\u0001w","x":{"k\\u0001":1},"a=b":"c","a":"b=c"}', '[{"id":1},{"id":2}]', '[{"id":1},{"x":2}]'])
            case = {"content": odd, "source": rng.choice([None, odd, "", text(rng)]), "format": rng.choice(["any", "text", "json", "base64"])}
        cases.append(case)
    return cases


def labelled() -> list[dict]:
    chains = json.loads((FIXTURES / "measurement" / "chains.json").read_text("utf-8"))["chains"]
    cases = []
    for chain in chains:
        for p in chain["passes"]:
            base = {"source": chain["source"], "format": chain.get("format", "any"), "required_fields": chain.get("required_fields", [])}
            cases.append({"content": p["content"], **base})
            cases.append({"content": p["content"], **{**base, "source": None}})
    return cases


def documented() -> list[dict]:
    page = (REPO / "docs" / "measurement.md").read_text("utf-8")
    return [json.loads(block) for block in re.findall(r"```json example\n(.*?)\n```", page, re.S)]


def nests() -> list[dict]:
    """JSON at the measurement's depth bound (64 levels) and one past it, objects and arrays."""
    cases = []
    for depth in (64, 65):
        for nest in ('{"a":' * depth + "1" + "}" * depth, "[" * depth + "1" + "]" * depth):
            cases.append({"content": nest, "source": nest, "format": "json"})
            cases.append({"content": nest, "source": None, "format": "any"})
    return cases


RELEASE = (
    "3.9.0 (2026-05-02): Parquet streaming export (up to 4 GB), migrate --dry-run, Postgres 17. "
    "Fixed: scheduler memory leak with more than 10,000 jobs (#4412) and the CSV time zone for UTC+5:45 (#4398). "
    "Removed /v1/export, use /v2/export; Node.js 20.9 is the minimum."
)
ORDERS = [{"sku": f"SKU-{n:05d}", "quantity": n % 7 + 1, "price": round(4.5 + n * 0.75, 2), "status": "paid" if n % 3 else "open"} for n in range(1, 9)]
COMMIT = """commit 3f2a9c1d8e7b6a5f4e3d2c1b0a9f8e7d6c5b4a39
Author: Ops Team <ops@example.com>
Date:   Mon Nov 30 10:00:07 2026 +0000

    scheduler: free finished jobs (#4412)

    The scheduler kept every finished job; past 10,000 jobs it ran out of memory.

 src/scheduler.ts | 4 +++-
 1 file changed, 3 insertions(+), 1 deletion(-)

diff --git a/src/scheduler.ts b/src/scheduler.ts
index 0a1b2c3d4e5f..5f4e3d2c1b0a 100644
old mode 100644
new mode 100755
--- a/src/scheduler.ts
+++ b/src/scheduler.ts
@@ -40,7 +40,9 @@ export class Scheduler {
   private jobs = new Map<string, Job>();
   private limit = 20000;
 
   finish(id: string): void {
-    this.jobs.get(id)!.done = true;
+    const job = this.jobs.get(id);
+    if (job) job.done = true;
+    this.jobs.delete(id);
   }
\\ No newline at end of file

   start(id: string, timeout = 5000): void {
@@ -88,3 +90,3 @@ export class Scheduler {
   drain(): number {
-    return this.queue.length;
+    return this.queue.length + this.jobs.size;
   }
diff --git a/docs/jobs.md b/docs/jobs.md
new file mode 100644
similarity index 90%
deleted file mode 100644
index 000000000000..1a2b3c4d5e6f
--- /dev/null
+++ b/docs/jobs.md
@@ -0,0 +1,2 @@
+Finished jobs are freed at once (since 3.9.1).
+The limit of 20,000 jobs is unchanged.
"""


def facts4() -> list[dict]:
    """What floorline-facts/4 changed: wrapped base64 (base64.ts unwrapBase64), JSON stated by
    value without required fields (facts.ts states, efficiency.ts jsonEfficiency) and the
    incidental lines of a unified diff (text.ts incidentalLines)."""
    mime = base64.encodebytes(RELEASE.encode("utf-8")).decode()  # lines of 76, LF, a final break
    narrow = "\n".join(mime.replace("\n", "")[i : i + 24] for i in range(0, len(mime.replace("\n", "")), 24))
    odd_width = "\n".join(mime.replace("\n", "")[i : i + 30] for i in range(0, len(mime.replace("\n", "")), 30))
    one_line = base64.b64encode(RELEASE.encode("utf-8")).decode() + "\n"
    crlf = mime.replace("\n", "\r\n")
    cases: list[dict] = []
    for wrapped in (mime, crlf, narrow, odd_width, one_line, mime.rstrip("\n"), mime + "\n", "\n" + mime, crlf.replace("\r\n", "\n", 1)):
        for fmt in ("base64", "any", "text"):
            cases.append({"content": wrapped, "source": RELEASE, "format": fmt})
            cases.append({"content": RELEASE, "source": wrapped, "format": fmt})
    cases.append({"content": "\n", "source": "\n", "format": "base64"})
    cases.append({"content": "QUJD\n\nREVG\n", "source": None, "format": "any"})
    # JSON reshaped: columnar, re-keyed, a value moved to a new path and repeated there.
    records = json.dumps(ORDERS)
    columnar = json.dumps({key: [o[key] for o in ORDERS] for key in ORDERS[0]})
    rekeyed = json.dumps({o["sku"]: {"n": o["quantity"], "cost": o["price"], "state": o["status"]} for o in ORDERS})
    renamed = json.dumps([{"code": o["sku"], "qty": o["quantity"], "unit_price": o["price"], "state": o["status"]} for o in ORDERS])
    repeated = json.dumps({"paid": ["paid"] * 9, "open": ["open"] * 2, "orders": ORDERS[:2]})
    for content in (columnar, rekeyed, renamed, repeated, records):
        for required in ([], ["sku"], ["[].sku"]):
            for fmt in ("json", "any"):
                cases.append({"content": content, "source": records, "format": fmt, "required_fields": required})
        cases.append({"content": content, "source": columnar, "format": "any"})
        cases.append({"content": records, "source": content, "format": "any"})
    key = "0a1b2c3d4e5f6a7b"
    cases.append({"content": f"{columnar[:40]} hash={key}", "source": records, "format": "any", "originals": {key: rekeyed}})
    cases.append({"content": columnar, "source": RELEASE, "format": "any"})
    # A unified diff, with its context lines, a commit message and file modes; a diff in a JSON string.
    hunks = "\n".join(line for line in COMMIT.split("\n") if line[:1] in "+-@" or line.startswith("diff "))
    changed = "\n".join(line for line in COMMIT.split("\n") if line[:1] in "+-")
    for content in (COMMIT, hunks, changed, COMMIT.replace("\n", "\r\n"), "scheduler: free finished jobs (#4412)"):
        cases.append({"content": content, "source": COMMIT, "format": "text"})
        cases.append({"content": COMMIT, "source": content, "format": "any"})
    no_hunk = "index 0a1b2c3d4e5f..5f4e3d2c1b0a 100644\nold mode 100644\nnew mode 100755 for 20000 jobs"
    cases.append({"content": "index 0a1b2c3d4e5f", "source": no_hunk, "format": "text"})
    cases.append({"content": "x", "source": json.dumps({"patch": COMMIT, "id": 4412}), "format": "any"})
    return cases


# `diff -u` of two files, no `diff --git` lines: the second file's header follows a context line
# of the first hunk, a third's follows an added line.
PLAIN_DIFF = """--- src/scheduler.ts\t2026-11-30 10:00:07.000000000 +0000
+++ src/scheduler.ts\t2026-11-30 10:04:12.000000000 +0000
@@ -40,4 +40,4 @@ export class Scheduler {
   private limit = 20000;
-  private timeout = 5000;
+  private timeout = 7500;
   finish(id: string): void {
--- docs/jobs.md\t2026-11-29 08:30:00.000000000 +0000
+++ docs/jobs.md\t2026-11-30 10:04:12.000000000 +0000
@@ -1,2 +1,2 @@
-The limit is 10,000 jobs (#4398).
+The limit is 20,000 jobs (#4412).
--- db/limits.sql\t2026-11-28 17:45:00.000000000 +0000
+++ db/limits.sql\t2026-11-30 10:04:12.000000000 +0000
@@ -7,3 +7,3 @@
--- limit: 10,000 jobs per shard-7
+-- limit: 20,000 jobs per shard-7
+++ counters: 4412 in v3.9.1
 SELECT 1;
-final 5000ms
--- 9.9.9 at the end of the text
"""


def diff_headers() -> list[dict]:
    """fb5136e and e413d9d: in a unified diff `diff --git`, `--- ` and `+++ ` lines are notation, a
    `--- ` line followed by `+++ ` (or a `+++ ` line after `--- `) is a file header even within a
    hunk and ends it, and that pairing is looked for within the text's own lines (a JSON string's)."""
    lines = PLAIN_DIFF.split("\n")
    headers = "\n".join(line for line in lines if line.startswith(("--- ", "+++ ")))
    git_headers = "\n".join(line for line in COMMIT.split("\n") if line.startswith(("diff --git ", "--- ", "+++ ")))
    changes = "\n".join(line for line in lines if line[:1] in "+-" and not line.startswith(("--- src", "+++ src", "--- docs", "+++ docs", "--- db", "+++ db")))
    # A `--- ` line inside a hunk that no `+++ ` follows, and one `+++ ` that no `--- ` precedes.
    removed = "@@ -1,3 +1,2 @@\n--- limit: 10,000 jobs per shard-7\n+-- limit: 20,000 jobs\n-x\n+++ counters: 4412 in v3.9.1\n ctx"
    # The text's last line is a `--- ` change line and its first a `+++ ` line: no header wraps around.
    ends = "+++ b/src/x.ts\n@@ -1,2 +1,2 @@\n-limit 10,000\n--- limit: 4412 per shard-7"
    # A pair split across two JSON strings: each is read alone.
    split = json.dumps({"a": "@@ -1 +1 @@\n-old 5000ms\n--- a/src/x.ts", "b": "+++ b/src/x.ts\n@@ -2 +2 @@\n-limit 10,000\n+limit 20,000"})
    cases: list[dict] = []
    for source in (PLAIN_DIFF, PLAIN_DIFF.rstrip("\n"), removed, ends, COMMIT, split, json.dumps({"patch": PLAIN_DIFF, "id": 4412}), json.dumps([removed, PLAIN_DIFF])):
        for content in (source, headers, git_headers, changes, removed, ends, "20,000 jobs, 7500, #4412, v3.9.1", "x"):
            cases.append({"content": content, "source": source, "format": "any"})
        cases.append({"content": source, "source": None, "format": "text"})
    for content in (PLAIN_DIFF, headers, changes, PLAIN_DIFF.replace("\n", "\r\n")):
        cases.append({"content": content, "source": PLAIN_DIFF, "format": "text"})
    cases.append({"content": PLAIN_DIFF.replace("\n", "\r\n"), "source": PLAIN_DIFF.replace("\n", "\r\n"), "format": "text"})
    return cases


def components() -> list[dict]:
    """0c61fae: every answer says what its score is made of: coverage and efficiency with a source
    that has facts, specificity and efficiency without a source or with one that has none, nothing
    when the content cannot be read."""
    factless = "the summary of the document and its overview"
    unreadable = base64.b64encode(bytes([0xFF, 0xFE, 0xFD, 0x80] * 6)).decode()
    cases: list[dict] = []
    for source in (None, factless, "", RELEASE, json.dumps({}), json.dumps(ORDERS)):
        for content in (RELEASE, RELEASE + " " + RELEASE, factless, "Postgres 17.", json.dumps(ORDERS[:3]), "{}", ""):
            cases.append({"content": content, "source": source, "format": "any"})
        for content, fmt in ((unreadable, "base64"), (unreadable, "any"), ("{not json", "json"), ("not base64!", "base64")):
            cases.append({"content": content, "source": source, "format": fmt})
            cases.append({"content": content, "source": source, "format": fmt, "required_fields": ["sku"]})
    return cases


def long_tokens() -> list[dict]:
    """86d1286: at most 64 alphanumeric runs of one token no rule recognises are read."""
    joined = ":".join(str(i) for i in range(1, 101))
    cases: list[dict] = []
    for content in (joined, "a=" + "b=" * 80 + "c", "Fehler " + "x-" * 70 + "y Ende", "1:" * 5000, "é." * 100):
        for source in (None, joined.replace(":", " "), "step 70 of the plan", "step 10 of the plan", RELEASE):
            cases.append({"content": content, "source": source, "format": "any"})
            cases.append({"content": source or "x", "source": content, "format": "text"})
    return cases


NUMBER_TEXTS = [
    # English, as words and as digits; "one" is a stop word: it states 1 in a content, never a fact of a source.
    "The export retries fifteen times, waits twenty-one seconds and keeps one backup of twelve files; a dozen workers, Forty-Two shards.",
    "The export retries 15 times, waits 21 seconds and keeps 1 backup of 12 files; 12 workers, 42 shards.",
    "Fifteen GB in five million rows since May five; retries=three, TWELVE nodes, -seven- days, ninety-nine of a hundred.",
    "15 GB in 5000000 rows since May 5; retries=3, 12 nodes, 7 days, 99 of 100.",
    # German, French and Spanish: their small numbers, a word the list leaves out ("elf", "dos"), one not in ASCII capitals.
    "Der Export l\u00e4uft mit zw\u00f6lf Prozessen, drei Versuchen und f\u00fcnf Minuten Pause f\u00fcr zwanzig Knoten, elf Jobs, ZW\u00d6LF Fehler. Zwei Dateien.",
    "Der Export l\u00e4uft mit 12 Prozessen, 3 Versuchen und 5 Minuten Pause f\u00fcr 20 Knoten, 11 Jobs, 12 Fehler. 2 Dateien.",
    "Le service garde douze fichiers, trois copies et vingt-cinq journaux pendant dix jours, z\u00e9ro perte, mille lignes.",
    "Le service garde 12 fichiers, 3 copies et 25 journaux pendant 10 jours, 0 perte, 1000 lignes.",
    "El proceso usa cuatro hilos, diez conexiones y quince segundos de espera con cien tareas, dos colas, Tres reintentos.",
    "El proceso usa 4 hilos, 10 conexiones y 15 segundos de espera con 100 tareas, 2 colas, 3 reintentos.",
    # Compounds that are no number: hundred-one, twenty-zero, twenty-one-two, one-two.
    "hundred-one twenty-zero twenty-one-two one-two sixty-nine one One ONE 1",
]


def number_words() -> list[dict]:
    """cd307a1, rule 1: a number written as a word states the number (tokens.ts numberWord,
    spelledNumber; words.ts NUMBER_WORDS): English with its compounds, and the small numbers of
    German, French and Spanish; "one" is a stop word that states 1 only in a content."""
    cases: list[dict] = []
    for source in NUMBER_TEXTS:
        for content in NUMBER_TEXTS:
            if content is not source:
                cases.append({"content": content, "source": source, "format": "any"})
        cases.append({"content": source, "source": None, "format": "text"})
    return cases


# A PostgreSQL log: user@database before the level, an entry going on in DETAIL, HINT and
# STATEMENT lines and in a tab-indented line, warnings, and "error" in lower case late in a line.
PG_LOG = """2026-11-30 10:00:01.120 UTC [4711] app@orders LOG:  checkpoint starting: time
2026-11-30 10:00:02.340 UTC [4712] app@orders ERROR:  deadlock detected
2026-11-30 10:00:02.340 UTC [4712] app@orders DETAIL:  Process 4712 waits for ShareLock on transaction 99120; blocked by process 4713.
\tProcess 4713 waits for ShareLock on transaction 99121; blocked by process 4712.
2026-11-30 10:00:02.340 UTC [4712] app@orders HINT:  See server log for query details.
2026-11-30 10:00:02.340 UTC [4712] app@orders STATEMENT:  UPDATE orders SET status = 'paid' WHERE id = 4412
2026-11-30 10:00:03.500 UTC [4714] app@orders LOG:  duration: 5003 ms  statement: SELECT count(*) FROM shard_7
2026-11-30 10:00:04.010 UTC [4715] app@orders WARNING:  there is no transaction in progress
2026-11-30 10:00:05.000 UTC [4716] app@orders LOG:  automatic vacuum of table orders: 12 pages removed
2026-11-30 10:00:06.000 UTC [4717] app@orders INFO:  vacuum found 31 dead rows, error budget at 97%
2026-11-30 10:00:07.200 UTC [4718] app@orders FATAL:  password authentication failed for user "report"
\tConnection matched pg_hba.conf line 99
2026-11-30 10:00:08.000 UTC [4719] app@orders LOG:  checkpoint complete: wrote 4412 buffers"""
APP_LOG = """2026-11-30T10:00:00Z INFO api request id=r1000 path=/orders status=200 ms=53
2026-11-30T10:00:01Z INFO retry scheduled for job 7 after upstream error code 502
2026-11-30T10:00:02Z WARN disk 91% full on /var/lib/postgresql
2026-11-30T10:00:03Z INFO api request id=r1003 path=/orders status=200 ms=18
2026-11-30T10:00:04Z level=error msg="payment gateway timeout" order=A-1189 ms=5000
    at Gateway.charge (src/gateway.ts:88)
    at Orders.pay (src/orders.ts:41)
2026-11-30T10:00:05Z INFO api request id=r1005 path=/orders status=200 ms=21
2026-11-30T10:00:06Z Warning: slow query on shard-7 took 2300 ms
2026-11-30T10:00:07Z DEBUG cache hit ratio 0.93
2026-11-30T10:00:08Z INFO error budget at 97% for /orders"""
# A man page: a flag ending in "error" opens no error entry; a real error report does, with the
# lines indented under it (a tab is eight blanks: more than the seven before "Error:").
MAN_PAGE = """EXPORT(1)                 User Commands                 EXPORT(1)

OPTIONS
       --exit-on-error
              Stop at the first failed row and exit with status 3.
       --max-errors=N
              Give up after N rejected rows (default 50).
       -on-error skip
              Skip rows that do not parse.

DIAGNOSTICS
       Error: the header of /data/orders.csv has 3 columns
\texpected 4 columns: sku, quantity, price, status
TypeError: cannot read the row header of /data/orders.csv
    at parse (lib/csv.js:212)
    at export (lib/export.js:40)
Exit status 3 is written to /var/log/export.log"""
TRACEBACK = """Starting export of 4412 rows to /data/orders.parquet
Traceback (most recent call last):
  File "export.py", line 88, in write
    writer.write(batch)
ValueError: column price has 3 nulls
Export finished with 1 error after 5000 ms"""


def _lines(text: str, keep: Callable[[str], bool]) -> str:
    return "\n".join(line for line in text.split("\n") if keep(line))


def entries() -> list[dict]:
    """cd307a1, rule 2: the facts of error and warning entries weigh at least half the coverage and
    gate it (index.ts salience; text.ts levelOf, indentOf, salientLines; facts.ts salient), and a
    flag such as --exit-on-error opens no error line (token-info.ts)."""
    pg_errors = _lines(PG_LOG, lambda line: " LOG: " not in line and " INFO: " not in line)
    pg_routine = _lines(PG_LOG, lambda line: " LOG: " in line or " INFO: " in line)
    pg_no_details = _lines(PG_LOG, lambda line: not line.startswith("\t") and not any(f" {w}: " in line for w in ("DETAIL", "HINT", "STATEMENT")))
    pg_summary = (
        "Deadlock between processes 4712 and 4713 on transactions 99120 and 99121 (ShareLock) while "
        "UPDATE orders SET status = 'paid' WHERE id = 4412; a warning: no transaction in progress; "
        "FATAL password authentication failed for user report (pg_hba.conf line 99)."
    )
    pg_half = "deadlock detected: process 4712 waits for ShareLock on transaction 99120"
    app_errors = _lines(APP_LOG, lambda line: " INFO " not in line and " DEBUG " not in line)
    app_routine = _lines(APP_LOG, lambda line: " INFO " in line)
    man_flags = _lines(MAN_PAGE, lambda line: "-error" in line or "errors" in line or "Skip" in line)
    man_report = _lines(MAN_PAGE, lambda line: line.startswith(("TypeError", "    at")))
    sources = {
        "pg": PG_LOG,
        "pg, CRLF": PG_LOG.replace("\n", "\r\n"),
        "pg, warnings only": _lines(PG_LOG, lambda line: " WARNING: " in line or " LOG: " in line),
        "app": APP_LOG,
        "man": MAN_PAGE,
        "traceback": TRACEBACK,
        "pg in JSON": json.dumps({"log": PG_LOG, "host": "db-7"}),
    }
    contents = [pg_errors, pg_routine, pg_no_details, pg_summary, pg_half, app_errors, app_routine, man_flags, man_report, TRACEBACK.split("\n")[-1]]
    cases: list[dict] = []
    for source in sources.values():
        for content in [source, *contents]:
            cases.append({"content": content, "source": source, "format": "any"})
        cases.append({"content": "x", "source": source, "format": "text"})
        cases.append({"content": json.dumps({"log": pg_errors}), "source": source, "format": "any"})
        cases.append({"content": source, "source": None, "format": "any"})
    for lines in ([PG_LOG.split("\n")[1]], PG_LOG.split("\n")[1:4], [MAN_PAGE.split("\n")[3]]):
        cases.append({"content": pg_summary, "source": "\n".join(lines), "format": "text"})
    return cases


# Release notes; "Removals" and "None." stand next to no other token, so they are no token the
# source holds (SourcePairs.holds) and a content's count leaves them out.
NEWS = """* Noteworthy changes in release 9.5 (2026-03-28) [stable]

** Bug fixes

  chmod -R now avoids a race where an attacker may replace a traversed file with a symlink,
  causing chmod to operate on an unintended file. [This bug was present in "the beginning".]

  cp, mv, and install no longer issue spurious diagnostics like "failed to preserve ownership"
  when copying to GNU/Linux CIFS file systems. [bug introduced in coreutils-9.1]

  numfmt --to=iec-i no longer rounds 1023.5 up to 1.0Ki with --round=nearest.

** New features

  timeout now accepts the --kill-after option with a default of fifteen seconds,
  and sort --parallel uses up to eight threads on a machine with 64 cores.

** Removals

  None."""
# The same release told in other words: a summary rewords, but keeps which words stand together.
NEWS_REWORDED = (
    "Release 9.5 of coreutils (2026-03-28): chmod -R avoids a race where an attacker may replace a traversed "
    "file with a symlink; cp, mv, and install no longer issue spurious diagnostics when copying to GNU/Linux "
    "CIFS file systems; numfmt --to=iec-i no longer rounds 1023.5 up to 1.0Ki with --round=nearest; timeout "
    "accepts the --kill-after option, and sort --parallel uses up to eight threads."
)


def _swapped(rng: random.Random, words: list[str], swaps: int) -> str:
    out = list(words)
    for _ in range(swaps):
        i, j = rng.randrange(len(out)), rng.randrange(len(out))
        out[i], out[j] = out[j], out[i]
    return " ".join(out)


def order() -> list[dict]:
    """cd307a1, rule 3: a text content that puts the source's neighbouring tokens together no more
    often than chance keeps none of its coverage, and in proportion up to four times chance
    (order.ts: SourcePairs, orderEvidence, orderFactor; at least 20 shared neighbouring pairs)."""
    rng = random.Random(20261204)
    cases: list[dict] = []
    for source in (NEWS, PG_LOG, " ".join(GERMAN)):
        words = source.split()
        lines = source.split("\n")
        shuffled = " ".join(rng.sample(words, len(words)))
        variants = [source, shuffled, "\n".join(rng.sample(lines, len(lines))), " ".join(reversed(words))]
        variants += [" ".join(rng.sample(words, len(words))) for _ in range(3)]
        # Partly shuffled: between chance and four times chance, the coverage in proportion.
        variants += [_swapped(rng, words, swaps) for swaps in (3, 8, 15, 25, 40, 60)]
        # Too few shared neighbours to judge; the source kept beside its shuffle; the words of each line shuffled.
        variants += [" ".join(rng.sample(words[:14], 14)), source + "\n" + shuffled]
        variants.append("\n".join(" ".join(rng.sample(line.split(), len(line.split()))) for line in lines))
        # Read as text only when decoded: base64 is, a JSON string is not.
        variants += [base64.b64encode(shuffled.encode("utf-8")).decode(), json.dumps({"text": shuffled})]
        for content in variants:
            for fmt in ("any", "text"):
                cases.append({"content": content, "source": source, "format": fmt})
    for content in (NEWS_REWORDED, NEWS_REWORDED.replace(";", "."), " ".join(rng.sample(NEWS_REWORDED.split(), len(NEWS_REWORDED.split())))):
        for source in (NEWS, json.dumps({"news": NEWS})):
            cases.append({"content": content, "source": source, "format": "any"})
    return cases


FRENCH = (
    "La version 9.5 corrige une course dans chmod -R et ajoute l'option --kill-after avec un délai de 15 secondes. "
    "Le programme sort utilise jusqu'à huit fils sur une machine avec 64 cœurs, et numfmt --to=iec-i ne arrondit plus 1023.5."
)


FUNCTION_WORDS = frozenset("the a an and of to in on for with is are was by from as at or not no now may up where this that it its der die das und ist mit von le la les et est des".split())


def words() -> list[dict]:
    """Words count in phrases, and across languages by the other facts (since floorline-facts/4;
    index.ts wordsCount, text.ts languageOf and phrasingOf): the development corpus's chains and
    adversarial cases (its bags of words and translations), and generated bags, lists and
    texts in other languages."""
    rng = random.Random(20261205)
    corpus = json.loads((REPO / "test" / "fixtures" / "measurement-corpus" / "dev.json").read_text())
    cases: list[dict] = [{"content": a["content"], "source": a["source"], "format": a["format"]} for a in corpus["adversarial"]]
    for chain in corpus["chains"]:
        if chain["format"] == "text":
            cases += [{"content": p["content"], "source": chain["source"], "format": "text"} for p in chain["passes"]]
    for source in (NEWS, " ".join(GERMAN), MAN_PAGE, FRENCH, PG_LOG):
        tokens = source.split()
        plain = list(dict.fromkeys(t for t in tokens if t.isalpha()))
        variants = [" ".join(plain), ", ".join(plain), "\n".join(plain), " ".join(rng.sample(plain, len(plain)))]
        # A bag without function words, shuffled: no phrases, and an order no better than chance.
        content_words = [t for t in plain if t.lower() not in FUNCTION_WORDS]
        variants.append(" ".join(rng.sample(content_words, len(content_words))))
        # Notes: words next to values; prose in each language; a text in two languages.
        variants += [NEWS_REWORDED, " ".join(GERMAN[:2]), FRENCH, GERMAN[0] + " " + NEWS_REWORDED, "le la les et est " * 3]
        variants += [" ".join(rng.sample(tokens, min(len(tokens), 30))) for _ in range(2)]
        for content in variants:
            cases.append({"content": content, "source": source, "format": "text"})
            cases.append({"content": content, "source": source, "format": "any"})
    return cases


PACKAGES = [
    ("08:15:01", "alpha:amd64", "1.4.0-1", "1.4.0-3"),
    ("08:15:07", "bravo:amd64", "2.0.1-2", "2.0.1-5"),
    ("08:15:12", "charlie:amd64", "0.9.8-1", "0.9.9-1"),
    ("08:15:20", "delta:amd64", "5.2.0-4", "5.3.1-1+b2"),
    ("08:15:20", "echo-utils:all", "1:3.2-1", "1:3.2-4~deb12u1"),
]
HOSTS = "host,address,rack,since\nweb-1,10.0.3.17,r4,2026-01-03\nweb-2,10.0.3.18,r4,2026-02-11\ndb-1,10.0.4.2,r7,2025-11-30\ncache-1,10.0.5.9,r2,2026-03-01"
COMMIT = "commit 5455f286d267074cdc8f927564ac8326e82ae796\nAuthor: Ada Example <ada@example.com>\nDate:   Fri Dec 4 05:24:05 2026 +0000\n\n    Export keys from the CLI"


def _package_lines(rows: list[tuple[str, str, str, str]]) -> str:
    return "\n".join(f"2026-03-02 {t} install {name} {old} {new}" for t, name, old, new in rows)


def bindings() -> list[dict]:
    """A fact counts with the record it belongs to (since floorline-facts/4; bindings.ts): values
    moved between the items of a list, one swap, a swap across a comma, summaries that aggregate
    items, facts of lines of other kinds composed, a fact repeated, and the same in base64."""
    rng = random.Random(20261205)
    source = _package_lines(PACKAGES)
    news = [p[3] for p in PACKAGES]
    variants = [source]
    for shift in (1, 2):
        variants.append(_package_lines([(t, n, o, news[(i + shift) % len(news)]) for i, (t, n, o, _) in enumerate(PACKAGES)]))
    swapped = list(PACKAGES)
    swapped[0], swapped[1] = (swapped[0][0], swapped[0][1], swapped[0][2], PACKAGES[1][3]), (swapped[1][0], swapped[1][1], swapped[1][2], PACKAGES[0][3])
    variants.append(_package_lines(swapped))
    # Times moved, names moved, the lines reordered (each intact), a swap across a comma.
    variants.append(_package_lines([(PACKAGES[(i + 1) % 5][0], n, o, w) for i, (_, n, o, w) in enumerate(PACKAGES)]))
    variants.append(_package_lines([(t, PACKAGES[(i + 3) % 5][1], o, w) for i, (t, _, o, w) in enumerate(PACKAGES)]))
    variants.append("\n".join(rng.sample(source.split("\n"), 5)))
    variants.append("\n".join(f"{n} {o}, then {news[(i + 1) % 5]}" for i, (_, n, o, _) in enumerate(PACKAGES)))
    variants.append("On 2026-03-02 between 08:15:01 and 08:15:20 dpkg installed " + ", ".join(f"{n} ({o} to {w})" for _, n, o, w in PACKAGES) + ".")
    variants.append("dpkg installed " + ", ".join(f"{n} {o} to {news[(i + 1) % 5]}" for i, (_, n, o, _) in enumerate(PACKAGES)) + ".")
    variants.append("alpha:amd64 and bravo:amd64 went from 1.4.0-1 and 2.0.1-2 to 1.4.0-3 and 2.0.1-5 at 08:15:01; charlie:amd64 0.9.8-1 0.9.8-1 0.9.9-1")
    variants.append(source.replace("1.4.0-3", "1.4.0-3 1.4.0-3 08:15:07"))
    cases: list[dict] = []
    for content in variants:
        for fmt in ("text", "any"):
            cases.append({"content": content, "source": source, "format": fmt})
    cases.append({"content": base64.b64encode(variants[1].encode()).decode(), "source": base64.b64encode(source.encode()).decode(), "format": "base64"})
    cases.append({"content": json.dumps({"log": variants[1]}), "source": source, "format": "any"})
    rows = HOSTS.split("\n")
    cells = [r.split(",") for r in rows[1:]]
    for shift in (0, 1, 3):
        moved = [",".join([c[0], cells[(i + shift) % 4][1], c[2], c[3]]) for i, c in enumerate(cells)]
        for sep in (",", " "):
            cases.append({"content": "\n".join([rows[0]] + [m.replace(",", sep) for m in moved]), "source": HOSTS, "format": "text"})
    for content in (
        "commit 5455f286d267074cdc8f927564ac8326e82ae796 (Fri Dec 4 05:24:05 2026 +0000) by Ada Example: export keys from the CLI",
        "5455f286d267074cdc8f927564ac8326e82ae796 Dec 4 05:24:05 ada@example.com",
    ):
        cases.append({"content": content, "source": COMMIT, "format": "text"})
    return cases


def camel_case() -> list[dict]:
    """A capital after a small letter makes a name wherever it stands (tokens.ts wordToken and
    plainWordKind, since floorline-facts/4): execFile is not execFileSync."""
    source = "The CLI now runs through promisify(execFile) instead of execFileSync; cliScript() and macOS stay. iPhone builds too."
    contents = ["The CLI now runs through execFile.", "execFileSync, cliScript and macOS.", "Execfile execfilesync cliscript macos iphone", source]
    return [{"content": c, "source": source, "format": f} for c in contents for f in ("text", "any")]


FRENCH_NOTICE = (
    "La commande backup-run copie chaque nuit les fichiers du r\u00e9pertoire /srv/data vers le disque /mnt/backup.\n"
    "Lorsque le disque est plein, elle s'arr\u00eate avant la copie et affiche un message d'erreur dans /var/log/backup.log.\n"
    "Les anciennes copies sont supprim\u00e9es apr\u00e8s 14 jours, sauf celles qu'on a marqu\u00e9es avec --keep.\n"
    "Depuis la version 2.3, la commande envoie aussi un courriel \u00e0 l'administrateur dont l'adresse se trouve dans /etc/backup.conf."
)
SPANISH_NOTICE = (
    "El programa backup-run copia cada noche los archivos del directorio /srv/data hacia el disco /mnt/backup.\n"
    "Cuando el disco est\u00e1 lleno, se detiene antes de la copia y escribe un mensaje de error en /var/log/backup.log.\n"
    "Las copias antiguas se borran tras 14 d\u00edas, salvo aquellas que se marcaron mediante --keep.\n"
    "Desde la versi\u00f3n 2.3, el programa tambi\u00e9n env\u00eda un correo al administrador, cuya direcci\u00f3n est\u00e1 en /etc/backup.conf."
)


def function_words() -> list[dict]:
    """French and Spanish function words are stop words, and so is an elided function word before
    one ("qu'il", "d'une"; words.ts FRENCH_WORDS, SPANISH_WORDS, ELISIONS, tokens.ts isElidedStop):
    sources and contents in both languages, their function words swapped, dropped, stuffed,
    capitalised and elided, and the English words the lists leave out."""
    rng = random.Random(20261206)
    fr_swapped = (
        FRENCH_NOTICE.replace("vers le", "sur le").replace("Lorsque", "Quand").replace("qu'on a marqu", "que l'on a marqu")
        .replace("Depuis", "D\u00e8s").replace("dont l'adresse se trouve dans", "lequel a son adresse en")
    )
    es_swapped = (
        SPANISH_NOTICE.replace("hacia el", "en el").replace("Cuando", "Si").replace("tras", "despu\u00e9s de")
        .replace("mediante", "con").replace("cuya direcci\u00f3n est\u00e1 en", "que tiene su direcci\u00f3n en")
    )
    elided = "Le service s'arr\u00eate s'il manque la cl\u00e9, jusqu'\u00e0 ce qu'on la fournisse ; c'est le cas d'une cl\u00e9 vide, S'IL le faut, Qu'il dit, l'option D'UNE, c'mon, n'y, aujourd'hui."
    filler_fr = "Ce texte pr\u00e9sente plusieurs \u00e9l\u00e9ments g\u00e9n\u00e9raux. Il est question de divers th\u00e8mes, dont certains sont tr\u00e8s int\u00e9ressants pour tous les lecteurs."
    filler_es = "Este texto presenta varios elementos generales. Se trata de diversos temas, algunos de ellos muy interesantes para todos los lectores."
    english = "Mon, 12 Jan 2026: the archive area non-free holds 2 packages; TODO: era, sea, tan, car, plus. Les Paul, DES keys, EST, CON, Sin."
    cases: list[dict] = []
    for source in (FRENCH_NOTICE, SPANISH_NOTICE, elided, english):
        words = source.split()
        variants = [
            fr_swapped, es_swapped, elided, filler_fr, filler_es, english,
            " ".join(w for w in words if w.lower() not in FUNCTION_WORDS),
            " ".join(rng.sample(words, len(words))),
            source.upper(), source.replace("\n", " "),
        ]
        for content in variants:
            cases.append({"content": content, "source": source, "format": "text"})
        cases.append({"content": source, "source": None, "format": "text"})
        cases.append({"content": json.dumps({"note": source}), "source": source, "format": "any"})
    return cases


def notation() -> list[dict]:
    """Notation is not a fact (since floorline-facts/4): Markdown's _emphasis_ (scan.ts TRAIL and
    LEAD), a hash abbreviated as git abbreviates it (tokens.ts hashKey), a link's address
    (scan.ts isLinkTarget, text.ts addTextFacts), a range of two numbers (tokens.ts
    numberRange), a fraction of a second (values.ts readTime); the cases of reference.test.ts,
    from one fixture."""
    cases = json.loads((REPO / "test" / "fixtures" / "measurement-notation.json").read_text())
    return [
        {"content": content, "source": source, "format": fmt}
        for source in cases["sources"]
        for content in cases["contents"] + cases["sources"]
        for fmt in ("text", "any")
    ]


def typescript(cases: list[dict]) -> list[dict]:
    done = subprocess.run([str(TSX), str(SDK / "tests" / "measure-ts.ts")], input=json.dumps(cases), capture_output=True, text=True, cwd=REPO, timeout=300)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def python(case: dict) -> dict:
    return measure_detailed(case["content"], case.get("source"), case.get("format", "any"), case.get("required_fields") or (), case.get("originals"))


@pytest.fixture(scope="module")
def compared():
    if not TSX.exists():
        pytest.skip("tsx is not installed (run npm ci at the repo root)")
    cases = labelled() + documented() + generated() + nests() + facts4() + diff_headers() + components() + long_tokens() + number_words() + entries() + order() + words() + bindings() + camel_case() + function_words() + notation()
    return cases, typescript(cases)


def same(got: dict, want: dict) -> bool:
    """Equal field for field, in the same order (the contract's, and the components' own), and
    equal floats are equal bits here (no -0, no NaN): their repr must match too."""
    if got != want or list(got) != list(want) or list(got["components"]) != list(want["components"]):
        return False
    scores = [("semantic_density_score", got, want)] + [(name, got["components"], want["components"]) for name in want["components"]]
    return all(repr(float(a[name])) == repr(float(b[name])) for name, a, b in scores)


def test_every_field_agrees_on_every_case(compared):
    cases, answers = compared
    mismatches = []
    for i, (case, want) in enumerate(zip(cases, answers)):
        got = python(case)
        if not same(got, want):
            mismatches.append((i, case, got, want))
    assert not mismatches, json.dumps(mismatches[:3], ensure_ascii=False, indent=1)[:6000]


def test_the_cases_reach_every_format_and_outcome(compared):
    _, answers = compared
    assert {a["format"] for a in answers} == {"text", "json", "base64"}
    assert any(a["facts"] and a["facts"]["recoverable"] for a in answers)
    assert any(not a["parseable"] for a in answers) and any(a["schema_valid"] is False for a in answers)
    assert len({a["semantic_density_score"] for a in answers}) > 100
    # With a source: coverage and efficiency, then the optional parts in the method's order; each
    # of those is reached by some case.
    optional = ("salience", "words", "values", "order")
    seen = {tuple(a["components"]) for a in answers}
    assert {(), ("specificity", "efficiency"), ("coverage", "efficiency")} <= seen
    for parts in seen - {(), ("specificity", "efficiency")}:
        assert parts[:2] == ("coverage", "efficiency") and list(parts[2:]) == [p for p in optional if p in parts[2:]], parts
    assert all(any(name in parts for parts in seen) for name in optional)
    # Entries kept in part (the gate below half) and in full; orders at chance and between it and four times chance.
    salience = {a["components"]["salience"] for a in answers if "salience" in a["components"]}
    assert min(salience) < 0.5 and 1 in salience
    order = {a["components"]["order"] for a in answers if "order" in a["components"]}
    assert 0 in order and any(0 < x < 1 for x in order)
    # Components whose rounded product is not the score: the score is the product before rounding.
    assert any(a["components"] and a["semantic_density_score"] != round(a["components"].get("coverage", a["components"].get("specificity", 0)) * a["components"]["efficiency"], 4) for a in answers)
