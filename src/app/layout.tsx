/**
 * The root layout: document shell, stylesheet and metadata. Session checks live in the
 * (console) group's layout, so the signed-out page renders with the same shell.
 */
import type { Metadata } from "next";
import type { ReactNode } from "react";
import "./globals.css";

export const metadata: Metadata = {
  title: { default: "Social Harness console", template: "%s · Social Harness" },
  description: "Owner console for Social Harness daemons.",
  robots: { index: false, follow: false },
  icons: { icon: "/icon.svg" },
};

export default function RootLayout({ children }: { children: ReactNode }) {
  return (
    <html lang="en">
      <body className="min-h-dvh font-sans">{children}</body>
    </html>
  );
}
