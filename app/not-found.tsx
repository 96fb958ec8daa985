import type { Metadata } from "next";
import { connection } from "next/server";

export const metadata: Metadata = { title: "Not found" };

// Rendered for each request, not once at build time: a page built ahead carries no nonce, so
// the page's policy blocked its scripts and it never hydrated (no theme toggle, no menu).
export default async function NotFound() {
  await connection();
  return (
    <div className="panel empty" data-testid="not-found">
      <h1>Page not found</h1>
      <p>
        Nothing lives at this address. Start from the <a href="/">overview</a>, or go to the{" "}
        <a href="/chains">chains</a>, <a href="/originals">originals</a> or <a href="/traces">traces</a>.
      </p>
    </div>
  );
}
