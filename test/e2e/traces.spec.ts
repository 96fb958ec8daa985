// The trace audit views in a real browser against the built app: the list with its search,
// filters, keyset pages and rejected submissions; a trace's detail; a chain's action space.
import { expect, test, type APIRequestContext } from "@playwright/test";

const run = Date.now().toString(36);
const chain = `e2e-traces-${run}`;
const pagedChain = `e2e-traces-paged-${run}`;
const ids = {
  auth: `auth-${run}`,
  probe: `probe-${run}`,
  refused: `refused-${run}`,
};

type Node = { node_id: string; node_type: string; content: string; verification_receipt: string | null };
const node = (
  node_id: string,
  node_type: string,
  content: string,
  verification_receipt: string | null = null,
): Node => ({
  node_id,
  node_type,
  content,
  verification_receipt,
});

async function submit(request: APIRequestContext, body: Record<string, unknown>, status = 201) {
  const response = await request.post("/api/v1/traces", { data: body });
  expect(response.status(), await response.text()).toBe(status);
  return response.json();
}

test.describe.configure({ mode: "serial" });

// A hydration mismatch or a client exception is a console error: none is allowed on these
// pages. Failed resource loads (a favicon, a prefetched page of another view) are not ours.
let consoleErrors: string[] = [];
test.beforeEach(({ page }) => {
  consoleErrors = [];
  page.on("console", (message) => {
    if (message.type() === "error" && !message.text().startsWith("Failed to load resource"))
      consoleErrors.push(message.text());
  });
  page.on("pageerror", (error) => consoleErrors.push(error.message));
});
test.afterEach(() => {
  expect(consoleErrors).toEqual([]);
});

test.beforeAll(async ({ request }) => {
  await submit(request, {
    trace_id: ids.auth,
    chain_id: chain,
    keep_nodes: true,
    nodes: [
      node("n1", "EXPLORATORY_CHATTER", "Maybe the key goes in the query string?"),
      node("n2", "FALSIFIED_PATH", "Query-string API key", "HTTP 401 from GET /orders?key=k"),
      node("n3", "FALSIFIED_PATH", "Basic auth with the service account"),
      node("n4", "VERIFIED_CONCLUSION", "Quokka API requires Bearer auth", "HTTP 200 with Authorization: Bearer"),
      node("n5", "VERIFIED_CONCLUSION", "The spool folder is read-only", "EROFS on open(O_WRONLY)"),
    ],
  });
  await submit(request, {
    trace_id: ids.probe,
    chain_id: chain,
    residual_digest: "f".repeat(64),
    nodes: [
      node("p1", "FALSIFIED_PATH", "the spool folder is  READ-ONLY", "touch spool/probe: exit 0"),
      node("p2", "VERIFIED_CONCLUSION", "Pages use opaque cursor tokens", "HTTP 200 with next_cursor"),
    ],
  });
  const refused = await request.post("/api/v1/traces", {
    data: {
      trace_id: ids.refused,
      chain_id: chain,
      nodes: [node("r1", "EXPLORATORY_CHATTER", "looks fine"), node("r2", "VERIFIED_CONCLUSION", "Everything is fine")],
    },
  });
  expect(refused.status()).toBe(422);
  expect((await refused.json()).error).toMatchObject({ code: "missing_verification_receipt", node_id: "r2" });
  for (let i = 0; i < 27; i++) {
    await submit(request, {
      trace_id: `paged-${run}-${String(i).padStart(2, "0")}`,
      chain_id: pagedChain,
      nodes: [node("x", "VERIFIED_CONCLUSION", `paged fact ${i}`, "ok")],
    });
  }
});

test("the list shows traces with their counts and digest status, and the refused submission beside them", async ({
  page,
}) => {
  await page.goto(`/traces?chain_id=${chain}`);
  const table = page.getByTestId("trace-table");
  await expect(table.locator("tbody tr")).toHaveCount(2);
  const auth = table.locator(`tr[data-row-id="${ids.auth}"]`);
  await expect(auth.getByTestId("axiom-count")).toHaveText("2");
  await expect(auth.getByTestId("invalidation-count")).toHaveText("1");
  await expect(auth.getByTestId("omitted-count")).toHaveText("1");
  await expect(auth.getByTestId("digest-status")).toHaveAttribute("data-status", "absent");
  await expect(table.locator(`tr[data-row-id="${ids.probe}"]`).getByTestId("digest-status")).toHaveText(
    "digest differs",
  );

  await expect(page.getByTestId("rejection-total")).toHaveText("1");
  const rejection = page.getByTestId("rejection-table").locator("tbody tr");
  await expect(rejection).toHaveCount(1);
  await expect(rejection.getByTestId("rejected-trace")).toHaveText(ids.refused);
  await expect(rejection.getByTestId("rejected-node")).toHaveText("r2 #1");
  // What was refused and why, and the chain it belongs to, one click away.
  await rejection.getByTestId("refused-node").locator("summary").click();
  await expect(rejection.getByTestId("refused-content")).toHaveText("Everything is fine");
  await expect(rejection.getByTestId("refused-reason")).toContainText("r2");
  await expect(rejection.getByTestId("rejected-chain")).toHaveAttribute("href", `/chains/${chain}`);

  // The demo data's trace is listed under its chain.
  await page.goto("/traces?chain_id=demo-healthy-orders");
  await expect(page.getByTestId("trace-table").locator('tr[data-row-id="demo-trace-auth"]')).toBeVisible();
});

test("search finds traces by axiom and invalidation text, and the digest filter narrows them", async ({ page }) => {
  await page.goto("/traces");
  const search = page.getByRole("searchbox", { name: "Search axioms and invalidations" });
  await search.fill("quokka");
  await page.getByRole("button", { name: "Search" }).click();
  await expect(page).toHaveURL(/q=quokka/);
  const rows = page.getByTestId("trace-table").locator("tbody tr");
  await expect(rows).toHaveCount(1);
  await expect(rows.first()).toHaveAttribute("data-row-id", ids.auth);

  await search.fill("spool/probe: EXIT 0");
  await page.getByRole("button", { name: "Search" }).click();
  await expect(rows).toHaveCount(1);
  await expect(rows.first()).toHaveAttribute("data-row-id", ids.probe);

  await search.fill("");
  await page.getByRole("textbox", { name: "Chain" }).fill(chain);
  await page.getByRole("combobox", { name: "Digest status" }).selectOption("true");
  await page.getByRole("button", { name: "Search" }).click();
  await expect(rows).toHaveCount(1);
  await expect(rows.first()).toHaveAttribute("data-row-id", ids.probe);

  await page.getByRole("link", { name: "Clear" }).click();
  await expect(page).toHaveURL(/\/traces$/);
});

test("keyset pages walk older and back newer without losing a trace", async ({ page }) => {
  await page.goto(`/traces?chain_id=${pagedChain}`);
  const rows = page.getByTestId("trace-table").locator("tbody tr");
  await expect(rows).toHaveCount(25);
  const firstPage = await rows.evaluateAll((trs) => trs.map((tr) => tr.getAttribute("data-row-id")));
  await page.getByTestId("trace-pager").getByRole("link", { name: "Older →" }).click();
  await expect(rows).toHaveCount(2);
  const secondPage = await rows.evaluateAll((trs) => trs.map((tr) => tr.getAttribute("data-row-id")));
  const all = [...firstPage, ...secondPage];
  expect(new Set(all).size).toBe(27);
  expect(all.sort()).toEqual(Array.from({ length: 27 }, (_, i) => `paged-${run}-${String(i).padStart(2, "0")}`));
  await expect(page.getByTestId("trace-pager").getByRole("link", { name: "Older →" })).toHaveCount(0);

  await page.getByTestId("trace-pager").getByRole("link", { name: "← Newer" }).click();
  await expect(rows).toHaveCount(25);
  expect(await rows.evaluateAll((trs) => trs.map((tr) => tr.getAttribute("data-row-id")))).toEqual(firstPage);
});

test("a trace's detail shows each axiom with its receipt, the walls, the omission, the boundary and the pruned nodes", async ({
  page,
}) => {
  await page.goto(`/traces?chain_id=${chain}`);
  await page.getByTestId("trace-table").getByRole("link", { name: ids.auth }).click();
  await expect(page).toHaveURL(new RegExp(`/traces/${ids.auth}$`));
  await expect(page.getByRole("heading", { level: 1 })).toHaveText(ids.auth);

  const axioms = page.getByTestId("axiom");
  await expect(axioms).toHaveCount(2);
  await expect(axioms.nth(0)).toContainText("Quokka API requires Bearer auth");
  await expect(axioms.nth(0)).toContainText("HTTP 200 with Authorization: Bearer");
  await expect(axioms.nth(1)).toContainText("EROFS on open(O_WRONLY)");

  const walls = page.getByTestId("invalidation");
  await expect(walls).toHaveCount(1);
  await expect(walls).toContainText("Query-string API key");
  await expect(walls).toContainText("HTTP 401 from GET /orders?key=k");

  await expect(page.getByTestId("omitted-count")).toHaveAttribute("data-count", "1");
  await expect(page.getByRole("note")).toContainText("free to try it again");
  await expect(page.getByTestId("eviction-boundary")).toContainText("Index 5 of 5 nodes");
  await expect(page.getByTestId("residual-digest")).toHaveText(/^[0-9a-f]{64}$/);
  await expect(page.getByTestId("digest-status")).toHaveText("not sent");

  const nodes = page.getByTestId("node-table").locator("tbody tr");
  await expect(nodes).toHaveCount(5);
  await expect(nodes.nth(0).getByTestId("node-fate")).toHaveAttribute("data-fate", "pruned");
  await expect(nodes.nth(0).locator("s")).toHaveText("Maybe the key goes in the query string?");
  await expect(nodes.nth(1).getByTestId("node-fate")).toHaveAttribute("data-fate", "invalidation");
  await expect(nodes.nth(2).getByTestId("node-fate")).toHaveAttribute("data-fate", "omitted");
  await expect(nodes.nth(3).getByTestId("node-fate")).toHaveAttribute("data-fate", "axiom");
  await expect(nodes.nth(3).locator("s")).toHaveCount(0);

  await page.goto(`/traces/${ids.probe}`);
  await expect(page.getByTestId("digest-status")).toHaveText("digest differs");
  await expect(page.getByTestId("client-digest")).toHaveText("f".repeat(64));
  await expect(page.getByTestId("nodes-evicted")).toBeVisible();
});

test("the chain's action space unions the traces, links each constraint to its trace, and highlights the conflict", async ({
  page,
}) => {
  await page.goto(`/chains/${chain}/action-space`);
  await expect(page.getByTestId("axiom-total")).toHaveText("3");
  await expect(page.getByTestId("forbidden-total")).toHaveText("2");
  await expect(page.getByTestId("conflict-total")).toHaveText("1");
  await expect(page.getByTestId("omitted-total")).toHaveText("1");
  await expect(page.getByTestId("rejected-total")).toHaveText("1");

  const conflict = page.getByTestId("conflict");
  await expect(conflict).toHaveCount(1);
  await expect(conflict).toContainText("The spool folder is read-only");
  await expect(conflict).toContainText("touch spool/probe: exit 0");

  const axiomRows = page.getByTestId("axiom-table").locator("tbody tr");
  await expect(axiomRows).toHaveCount(3);
  const conflicted = axiomRows.filter({ hasText: "The spool folder is read-only" });
  await expect(conflicted.getByTestId("conflict-mark")).toBeVisible();
  await expect(
    axiomRows.filter({ hasText: "Quokka API requires Bearer auth" }).getByTestId("conflict-mark"),
  ).toHaveCount(0);
  const highlighted = await conflicted
    .locator("td")
    .first()
    .evaluate((td) => getComputedStyle(td).backgroundColor);
  const plain = await axiomRows
    .filter({ hasText: "Quokka" })
    .locator("td")
    .first()
    .evaluate((td) => getComputedStyle(td).backgroundColor);
  expect(highlighted).not.toBe(plain);

  const forbidden = page.getByTestId("forbidden-table").locator("tbody tr");
  await expect(forbidden).toHaveCount(2);
  await expect(forbidden.filter({ hasText: "spool folder" }).getByTestId("conflict-mark")).toBeVisible();

  await conflicted.getByTestId("source-trace").click();
  await expect(page).toHaveURL(new RegExp(`/traces/${ids.auth}$`));
  await page.goBack();
  await forbidden.filter({ hasText: "spool folder" }).getByTestId("source-trace").click();
  await expect(page).toHaveURL(new RegExp(`/traces/${ids.probe}$`));
});

test("ids with spaces, slashes and non-ASCII open their detail and action-space pages", async ({ page, request }) => {
  const traceId = `odd id/${run} ü%`;
  const oddChain = `odd chain/${run} é`;
  await submit(request, {
    trace_id: traceId,
    chain_id: oddChain,
    nodes: [node("1", "VERIFIED_CONCLUSION", "Odd ids survive the URL", "round trip ok")],
  });
  await page.goto(`/traces?chain_id=${encodeURIComponent(oddChain)}`);
  await page.getByTestId("trace-table").getByRole("link", { name: traceId }).click();
  await expect(page.getByRole("heading", { level: 1 })).toHaveText(traceId);
  await expect(page.getByTestId("axiom")).toContainText("Odd ids survive the URL");
  await page.getByRole("link", { name: "action space handed to a successor" }).click();
  await expect(page.getByTestId("axiom-total")).toHaveText("1");
  await expect(page.getByTestId("axiom-table")).toContainText("Odd ids survive the URL");
});
