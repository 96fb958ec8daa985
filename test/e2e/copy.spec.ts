// The one copy button: the clipboard API where the browser offers it, selecting the text and
// execCommand("copy") where it does not (plain http from another machine), and a visible error
// with the text ready to copy by hand when both fail.
import { expect, test } from "@playwright/test";

const chain = "demo-healthy-orders";
const copyChainId = (page: import("@playwright/test").Page) =>
  page.getByRole("button", { name: `Copy chain id: ${chain}` });

test("without navigator.clipboard, copying falls back to execCommand on the selected text", async ({ page }) => {
  await page.addInitScript(() => {
    Object.defineProperty(Navigator.prototype, "clipboard", { get: () => undefined });
    const copied: string[] = [];
    (window as unknown as { copied: string[] }).copied = copied;
    document.execCommand = (command: string) => {
      // What a real copy would take: the text selected in the field the button put on the page.
      const area = document.querySelector<HTMLTextAreaElement>("body > textarea");
      if (command !== "copy" || !area) return false;
      copied.push(area.value.slice(area.selectionStart, area.selectionEnd));
      return true;
    };
  });
  await page.goto(`/chains/${chain}`);
  await copyChainId(page).click();
  await expect(page.getByRole("button", { name: `Copy chain id: ${chain}` })).toHaveAttribute("title", "Copied");
  expect(await page.evaluate(() => (window as unknown as { copied: string[] }).copied)).toEqual([chain]);
  await expect(page.getByText("Could not copy")).toHaveCount(0);
});

test("when every way to copy fails, the button says so and offers the text selected", async ({ page }) => {
  await page.addInitScript(() => {
    Object.defineProperty(Navigator.prototype, "clipboard", { get: () => undefined });
    document.execCommand = () => false;
  });
  await page.goto(`/chains/${chain}`);
  await copyChainId(page).click();
  const alert = page.getByRole("alert").filter({ hasText: "Could not copy" });
  await expect(alert).toBeVisible();
  const field = alert.getByRole("textbox", { name: "Text to copy" });
  await expect(field).toHaveValue(chain);
  expect(await field.evaluate((el: HTMLTextAreaElement) => el.value.slice(el.selectionStart, el.selectionEnd))).toBe(
    chain,
  );
  await alert.getByRole("button", { name: "Dismiss" }).click();
  await expect(alert).toHaveCount(0);
});
