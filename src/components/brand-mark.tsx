/** The console's mark and name, shared by the sidebar and the signed-out page. */
export function BrandMark() {
  return (
    <span className="flex items-center gap-2 font-semibold tracking-tight text-ink">
      <svg aria-hidden="true" viewBox="0 0 32 32" className="size-7 shrink-0">
        <rect width="32" height="32" rx="7" fill="currentColor" className="text-accent" />
        <path
          d="M9 11.5a4.5 4.5 0 0 1 4.5-4.5h5a4.5 4.5 0 0 1 0 9H16l-4 3.5V16h-.5"
          fill="none"
          stroke="#fff"
          strokeWidth="2.2"
          strokeLinecap="round"
          strokeLinejoin="round"
        />
        <circle cx="21.5" cy="22.5" r="3" fill="#fff" />
      </svg>
      Social Harness
    </span>
  );
}
