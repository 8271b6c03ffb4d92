/** @type {import("prettier").Config} */
const config = { printWidth: 120 };
export default config;
