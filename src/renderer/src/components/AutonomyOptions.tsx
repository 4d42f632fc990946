/** The four autonomy levels, as every picker offers them. */
export function AutonomyOptions() {
  return (
    <>
      <option value="L0">L0 observe: ask for everything</option>
      <option value="L1">L1 recommend: reads run, writes ask</option>
      <option value="L2">L2 assisted: small writes run</option>
      <option value="L3">L3 supervised: all but destructive run</option>
    </>
  );
}
