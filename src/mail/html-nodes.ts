// The htmlparser2 node shapes the hidden-HTML modules walk, and guards that narrow them.

import { ElementType, type parseDocument } from "htmlparser2";

export type Document = ReturnType<typeof parseDocument>;
export type AnyNode = Document | Document["children"][number];
export type Element = Extract<AnyNode, { attribs: Record<string, string> }>;
type TextNode = Extract<AnyNode, { type: typeof ElementType.Text }>;
type CommentNode = Extract<AnyNode, { type: typeof ElementType.Comment }>;
type ParentNode = Extract<AnyNode, { children: unknown[] }>;

export const isElement = (n: AnyNode): n is Element => "attribs" in n;
export const isText = (n: AnyNode): n is TextNode => n.type === ElementType.Text;
export const isComment = (n: AnyNode): n is CommentNode => n.type === ElementType.Comment;
export const hasChildren = (n: AnyNode): n is ParentNode => "children" in n;

// Elements whose content a mail client never renders as text.
export const NOT_RENDERED = new Set([
  "script",
  "style",
  "noscript",
  "template",
  "object",
  "embed",
  "applet",
  "iframe",
  "frame",
  "frameset",
  "svg",
  "canvas",
  "audio",
  "video",
  "xml",
]);
