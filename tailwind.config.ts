/**
 * The console's Tailwind theme, loaded from src/app/globals.css with `@config`. Colours are
 * named by role (surface, ink, accent, danger) so components never hard-code a palette.
 */
import type { Config } from "tailwindcss";

const config: Config = {
  content: ["./src/**/*.{ts,tsx}"],
  theme: {
    extend: {
      colors: {
        surface: { DEFAULT: "#ffffff", muted: "#f6f7f9", sunken: "#eef0f4" },
        ink: { DEFAULT: "#14161a", muted: "#5b6270", faint: "#8a91a0" },
        line: { DEFAULT: "#e1e4ea", strong: "#c9ced8" },
        accent: { DEFAULT: "#4338ca", hover: "#3730a3", soft: "#eef2ff", ink: "#312e81" },
        ok: { DEFAULT: "#15803d", soft: "#dcfce7" },
        warn: { DEFAULT: "#b45309", soft: "#fef3c7" },
        danger: { DEFAULT: "#b91c1c", hover: "#991b1b", soft: "#fee2e2" },
      },
      fontFamily: {
        sans: ["ui-sans-serif", "system-ui", "-apple-system", "Segoe UI", "Roboto", "sans-serif"],
        mono: ["ui-monospace", "SFMono-Regular", "Menlo", "Consolas", "monospace"],
      },
      maxWidth: { prose: "72ch" },
    },
  },
};

export default config;
