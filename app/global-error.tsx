"use client";

import { ErrorExplainer } from "./error-explainer";
import "./globals.css";

// Replaces the root layout when the layout itself failed, so it brings its own html and body.
export default function GlobalError(props: { error: Error & { digest?: string }; reset: () => void }) {
  return (
    <html lang="en">
      <head>
        <title>Error · Floorline</title>
      </head>
      <body>
        <main>
          <ErrorExplainer {...props} />
        </main>
      </body>
    </html>
  );
}
