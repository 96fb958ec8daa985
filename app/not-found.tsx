import type { Metadata } from "next";

export const metadata: Metadata = { title: "Not found" };

export default function NotFound() {
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
