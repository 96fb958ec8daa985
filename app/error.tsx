"use client";

import { ErrorExplainer } from "./error-explainer";

export default function ErrorPage(props: { error: Error & { digest?: string }; reset: () => void }) {
  return <ErrorExplainer {...props} />;
}
