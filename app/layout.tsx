import type { Metadata } from "next";
import "./globals.css";
import { SessionMenu } from "@/components/access/session-menu";

export const metadata: Metadata = {
  title: { default: "Floorline", template: "%s · Floorline" },
  description: "Watch agent context-compression chains, and see where they collapse below the floor.",
};

const NAV = [
  { href: "/", label: "Overview" },
  { href: "/chains", label: "Chains" },
  { href: "/policies", label: "Policies" },
  { href: "/originals", label: "Originals" },
  { href: "/traces", label: "Traces" },
];

export default function RootLayout({ children }: { children: React.ReactNode }) {
  return (
    <html lang="en">
      <body>
        <header className="site-header">
          <a href="/" className="brand">
            Floorline
          </a>
          <nav aria-label="Main">
            {NAV.map((item) => (
              <a key={item.href} href={item.href}>
                {item.label}
              </a>
            ))}
          </nav>
          <SessionMenu />
        </header>
        <main>{children}</main>
      </body>
    </html>
  );
}
