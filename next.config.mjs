// The owner console's Next.js configuration. Standalone output feeds docker/console.Dockerfile
// (`next start` still serves the same build). Security headers apply to every response: the
// console is never framed and never sends a referrer (the login link carries a token).
/** @type {import("next").NextConfig} */
const nextConfig = {
  output: "standalone",
  poweredByHeader: false,
  reactStrictMode: true,
  async headers() {
    return [
      {
        source: "/:path*",
        headers: [
          { key: "Referrer-Policy", value: "no-referrer" },
          { key: "X-Frame-Options", value: "DENY" },
          { key: "X-Content-Type-Options", value: "nosniff" },
        ],
      },
    ];
  },
};

export default nextConfig;
