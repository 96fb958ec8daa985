// Lineage findings in a real browser against the built app (docs/lineage.md): the demo's
// successor on its trace page and its chain's action space, with the ancestor's receipts
// beside each finding; the overview's figure; and docs/lineage.md's worked example as written.
import { execFileSync } from "node:child_process";
import { expect, test } from "@playwright/test";
import { blocksUnder } from "../support/markdown";

const SUCCESSOR = "demo-trace-export-after-compaction";
const PARENT = "demo-trace-export-first-context";

test("the trace page shows the walls a successor hit, the ancestor's receipt beside each", async ({ page }) => {
  await page.goto(`/traces/${SUCCESSOR}`);
  await expect(page.getByTestId("parent-trace")).toHaveText(PARENT);
  const section = page.getByTestId("lineage-section");
  await expect(section.getByRole("heading", { name: "Walls hit again (2)" })).toBeVisible();
  const findings = section.getByTestId("lineage-finding");
  await expect(findings).toHaveCount(2);

  const wall = findings.and(page.locator('[data-kind="wall_reexplored"]'));
  await expect(wall).toContainText("node s2");
  await expect(wall).toContainText("Raise the export worker pool to 64");
  await expect(wall.getByTestId("lineage-receipt")).toHaveText("pool=64: export still cut at 30.0 s (run 118, exit 1)");

  const contradiction = findings.and(page.locator('[data-kind="axiom_contradicted"]'));
  await expect(contradiction).toContainText("staging proxy idle_timeout=120s");
  await expect(contradiction.getByTestId("lineage-receipt")).toHaveText(
    "curl -v: connection reset at 30.0 s; proxy.conf idle_timeout=30s",
  );

  // The ancestor is one click away, and its page names the successor that hit its walls.
  await contradiction.getByTestId("lineage-ancestor").getByRole("link", { name: PARENT }).click();
  await expect(page).toHaveURL(new RegExp(`/traces/${PARENT}$`));
  await expect(page.getByTestId("lineage-section")).toHaveCount(0);
  await expect(page.getByTestId("successor-findings").getByRole("link", { name: SUCCESSOR })).toHaveCount(2);
});

test("the action space and the overview count the successor that hit a wall", async ({ page }) => {
  await page.goto("/chains/demo-lineage-export/action-space");
  await expect(page.getByTestId("lineage-total")).toHaveText("1");
  const section = page.getByTestId("lineage-section");
  await expect(section.getByRole("link", { name: SUCCESSOR })).toBeVisible();
  await expect(section.getByTestId("lineage-finding")).toHaveCount(2);
  await expect(section.getByTestId("lineage-receipt").first()).toBeVisible();

  // Other specs add traces meanwhile: the figure and its list are read again until they agree.
  await expect(async () => {
    await page.goto("/?range=all");
    const figure = page.getByTestId("trace-figure-walls");
    const shown = Number(((await figure.locator(".value").textContent()) ?? "").replace(/,/g, ""));
    expect(shown).toBeGreaterThanOrEqual(1);
    const listed = (await (await page.request.get("/api/v1/traces?walls=true&limit=500")).json()) as {
      items: { trace_id: string; finding_count: number }[];
    };
    expect(listed.items.length).toBe(shown);
    expect(listed.items.every((t) => t.finding_count > 0)).toBe(true);
  }).toPass({ timeout: 30_000 });
  await page.getByTestId("trace-figure-walls").click();
  await expect(page.getByTestId("trace-table").locator(`tr[data-row-id="${SUCCESSOR}"]`)).toBeVisible();
  await expect(page.getByTestId("trace-table").locator(`tr[data-row-id="${PARENT}"]`)).toHaveCount(0);
});

test("docs/lineage.md: the worked example prints what the page says", async ({ baseURL }) => {
  const blocks = blocksUnder("docs/lineage.md", "## A worked example");
  const script = blocks.find((b) => b.lang === "sh");
  const printed = blocks.find((b) => b.lang === "text");
  if (!script || !printed) throw new Error("docs/lineage.md lost its worked example");
  const out = execFileSync(
    "bash",
    ["-euo", "pipefail", "-c", script.code.replaceAll("http://127.0.0.1:3000", baseURL ?? "")],
    {
      encoding: "utf8",
    },
  );
  expect(out.trim()).toBe(printed.code.trim());
});
