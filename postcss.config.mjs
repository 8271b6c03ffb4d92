// PostCSS for the console: Tailwind CSS 4 through its PostCSS plugin (web-stack.md §3).
const config = {
  plugins: { "@tailwindcss/postcss": {} },
};

export default config;
