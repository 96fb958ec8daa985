import type { Metadata } from "next";
import "./globals.css";

export const metadata: Metadata = {
  title: "Floorline",
  description: "Watch agent context-compression chains collapse, and stop them before they do.",
};

export default function RootLayout({ children }: { children: React.ReactNode }) {
  return (
    <html lang="en">
      <body>
        <header className="site-header">
          <a href="/" className="brand">Floorline</a>
          <nav>
            <a href="/">Chains</a>
          </nav>
        </header>
        <main>{children}</main>
      </body>
    </html>
  );
}
