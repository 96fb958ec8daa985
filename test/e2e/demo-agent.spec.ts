// `npm run demo:agent` against this run's server: the real compressors, through the SDK, over
// HTTP, and the three failure modes of the seeds on the chain pages, each where the content
// actually collapsed.
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { expect, test } from "@playwright/test";

const run = promisify(execFile);

test("npm run demo:agent sends chains that show schema truncation, a semantic void and encoding degradation", async ({
  baseURL,
  page,
}) => {
  test.setTimeout(180_000);
  if (!baseURL) throw new Error("no baseURL");
  const prefix = `e2e-agent-${Date.now()}`;
  const { stdout } = await run("npm", ["run", "--silent", "demo:agent", "--", "--url", baseURL, "--prefix", prefix], {
    timeout: 150_000,
  });
  // What the agent saw, chain by chain, and that everything it queued was delivered.
  expect(stdout).toMatch(
    new RegExp(
      `${prefix}-schema-truncation: restore at pass 5: HALT: Pass ${prefix}-schema-truncation\\.p5 schema invalid\\.`,
    ),
  );
  expect(stdout).toMatch(new RegExp(`${prefix}-semantic-void: halt at pass 4: HALT: Density 0\\.\\d\\d < 0\\.45\\.`));
  expect(stdout).toMatch(
    new RegExp(
      `${prefix}-encoding-degradation: accept_loss at pass 4: HALT: Pass ${prefix}-encoding-degradation\\.p4 unparseable`,
    ),
  );
  expect(stdout).toMatch(/failed 1, dropped 0/);

  const row = (chain: string, n: number) =>
    page.getByTestId("passes-table").locator(`tr[data-row-id="${prefix}-${chain}.p${n}"]`);

  // Schema truncation: pass 5 dropped items.sku; the agent restored pass 4.
  await page.goto(`/chains/${prefix}-schema-truncation`);
  await expect(row("schema-truncation", 5)).toContainText("floor breach");
  await expect(row("schema-truncation", 5)).toContainText(`HALT: Pass ${prefix}-schema-truncation.p5 schema invalid.`);
  await expect(row("schema-truncation", 4)).toContainText("safe");
  await expect(page.getByTestId("size-chart").getByTestId("size-boundary-marker")).toContainText("restore");
  await expect(page.getByTestId("size-chart").getByTestId("size-collapse-marker")).toContainText("collapse · pass 5");

  // Semantic void: summaries of summaries; at pass 4 the measured density is under the floor.
  await page.goto(`/chains/${prefix}-semantic-void`);
  await expect(row("semantic-void", 4)).toContainText("collapse imminent");
  await expect(row("semantic-void", 4)).toContainText(/HALT: Density 0\.\d\d < 0\.45\./);
  await expect(row("semantic-void", 3)).toContainText("safe");
  await expect(page.getByTestId("density-chart").getByTestId("density-collapse-marker")).toContainText(
    "collapse · pass 4",
  );
  await expect(page.getByTestId("density-chart").getByTestId("density-boundary-marker")).toContainText("halt");
  await expect(page.getByTestId("density-under-floor").first()).toBeVisible();

  // Encoding degradation: still base64, but at pass 4 it no longer decodes to text; loss accepted.
  await page.goto(`/chains/${prefix}-encoding-degradation`);
  await expect(row("encoding-degradation", 4)).toContainText("floor breach");
  await expect(row("encoding-degradation", 4)).toContainText("unparseable");
  await expect(row("encoding-degradation", 3)).toContainText("safe");
  await expect(page.getByTestId("size-chart").getByTestId("size-boundary-marker")).toContainText("accept");
});
