import type { Metadata, Viewport } from "next";
import Link from "next/link";
import { THEME_BOOT_SCRIPT } from "@/lib/theme";
import { SiteNav } from "@/components/layout/site-nav";
import { ThemeToggle } from "@/components/layout/theme-toggle";
import "./globals.css";
import { SessionMenu } from "@/components/access/session-menu";

export const metadata: Metadata = {
  title: { default: "Floorline", template: "%s · Floorline" },
  description: "Watch agent context-compression chains, and see where they collapse below the floor.",
};

export const viewport: Viewport = { width: "device-width", initialScale: 1 };

export default function RootLayout({ children }: { children: React.ReactNode }) {
  return (
    // The boot script sets data-theme on <html> before React hydrates.
    <html lang="en" suppressHydrationWarning>
      <head>
        {/* Applies a remembered colour scheme before first paint (no flash of the other one). */}
        {/* biome-ignore lint/security/noDangerouslySetInnerHtml: a constant string of our own */}
        <script dangerouslySetInnerHTML={{ __html: THEME_BOOT_SCRIPT }} />
      </head>
      <body>
        <a href="#main" className="skip-link">
          Skip to content
        </a>
        <header className="site-header">
          <Link href="/" className="brand">
            Floorline
          </Link>
          <SiteNav />
          <SessionMenu />
          <ThemeToggle />
        </header>
        <main id="main" tabIndex={-1}>
          {children}
        </main>
      </body>
    </html>
  );
}
