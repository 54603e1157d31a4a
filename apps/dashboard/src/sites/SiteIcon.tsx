/** A site's icon (its own image when set), or a dot in its colour with its first letter. */
export function SiteIcon(props: { domain: string; icon: string | null; colour: string | null }) {
  if (props.icon)
    return <img class="site-icon" src={props.icon} alt="" width={20} height={20} loading="lazy" />;
  return (
    <span
      class="site-icon letter"
      aria-hidden="true"
      style={props.colour ? { background: props.colour } : undefined}
    >
      {props.domain.charAt(0).toUpperCase()}
    </span>
  );
}
