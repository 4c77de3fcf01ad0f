// Hiding techniques and look-alikes, one row each: the text HIDDENn is hidden from a person,
// SHOWNn is seen. Checked against the sanitizer (test/mail/hidden-text.table.test.ts) and against
// Chromium (test/mail/hidden-text.oracle.test.ts). The first rows are the examples of issue 22.

export type Row = [name: string, html: string];
const STD = "<!DOCTYPE html>";

export const ROWS: Row[] = [
  // The examples.
  ["attribute selector", `<style>[data-h]{display:none}</style><p data-h>HIDDEN1</p><p>SHOWN1</p>`],
  ["structural pseudo-class", `<style>p:first-child{display:none}</style><div><p>HIDDEN1</p><p>SHOWN1</p></div>`],
  ["rule inside @media screen", `<style>@media screen{.a{display:none}}</style><p class="a">HIDDEN1</p><p>SHOWN1</p>`],
  ["rule inside @supports", `<style>@supports (display:flex){.a{display:none}}</style><p class="a">HIDDEN1</p><p>SHOWN1</p>`],
  ["escaped class .h\\31", `<style>.h\\31{display:none}</style><p class="h1">HIDDEN1</p><p>SHOWN1</p>`],
  ["child combinator ending in a tag", `<style>div > span{display:none}</style><div><span>HIDDEN1</span></div><p>SHOWN1</p>`],
  ["white text through a custom property", `<style>:root{--c:#fff}.x{color:var(--c)}</style><p class="x">HIDDEN1</p><p>SHOWN1</p>`],
  [
    "look-alike: .never .x hides no .x outside .never",
    `<style>.never .x{display:none}</style><p class="x">SHOWN1</p><div class="never"><p class="x">HIDDEN1</p></div>`,
  ],
  // More hiding through the cascade and selectors.
  ["attribute value selector", `<style>[data-k="v"]{visibility:hidden}</style><p data-k="v">HIDDEN1</p><p data-k="w">SHOWN1</p>`],
  ["attribute prefix selector", `<style>[class^="pre"]{font-size:0}</style><p class="prefix">HIDDEN1</p><p class="xpre">SHOWN1</p>`],
  [":nth-child(2)", `<style>li:nth-child(2){display:none}</style><ul><li>SHOWN1</li><li>HIDDEN1</li><li>SHOWN2</li></ul>`],
  [":last-child", `<style>.w > :last-child{opacity:0}</style><div class="w"><p>SHOWN1</p><p>HIDDEN1</p></div>`],
  ["adjacent sibling", `<style>.m + p{display:none}</style><p class="m">SHOWN1</p><p>HIDDEN1</p><p>SHOWN2</p>`],
  ["general sibling", `<style>.m ~ p{color:#fff}</style><p>SHOWN1</p><p class="m">SHOWN2</p><p>HIDDEN1</p>`],
  [":not()", `<style>.w > :not(.keep){display:none}</style><div class="w"><p class="keep">SHOWN1</p><p>HIDDEN1</p></div>`],
  [":is() forgiving an unknown argument", `<style>:is(.x, :nonsense){display:none}</style><p class="x">HIDDEN1</p><p>SHOWN1</p>`],
  [":has()", `<style>div:has(> b) p{display:none}</style><div><b></b><p>HIDDEN1</p></div><div><p>SHOWN1</p></div>`],
  ["nested rule", `<style>.w{ .x{display:none} }</style><div class="w"><p class="x">HIDDEN1</p></div><p class="x">SHOWN1</p>`],
  [
    "@media with a width range that holds",
    `<style>@media (600px <= width <= 1600px){.a{display:none}}</style><p class="a">HIDDEN1</p><p>SHOWN1</p>`,
  ],
  [
    "@media only screen and min-width",
    `<style>@media only screen and (min-width:480px){.a{display:none}}</style><p class="a">HIDDEN1</p><p>SHOWN1</p>`,
  ],
  [
    "@supports not with an unknown value",
    `<style>@supports not (display:nonsense){.a{display:none}}</style><p class="a">HIDDEN1</p><p>SHOWN1</p>`,
  ],
  ["@layer rule", `<style>@layer base{.a{display:none}}</style><p class="a">HIDDEN1</p><p>SHOWN1</p>`],
  [
    "unlayered rule beats a stronger layered one",
    `<style>.a{display:none}@layer l{#i.a{display:block}}</style><p class="a" id="i">HIDDEN1</p><p>SHOWN1</p>`,
  ],
  ["<style media=screen>", `<style media="screen">.a{display:none}</style><p class="a">HIDDEN1</p><p>SHOWN1</p>`],
  [
    "!important in a stylesheet beats inline",
    `<style>.a{display:none!important}</style><p class="a" style="display:block">HIDDEN1</p><p>SHOWN1</p>`,
  ],
  [
    "specificity beats a later rule",
    `<style>div .a.a{display:none}.a{display:block}</style><div><p class="a">HIDDEN1</p></div><p>SHOWN1</p>`,
  ],
  ["escaped property name and comment in value", `<style>.a{dis\\70 lay:/* x */none}</style><p class="a">HIDDEN1</p><p>SHOWN1</p>`],
  ["uppercase property and value", `<style>.a{DISPLAY:NONE}</style><p class="a">HIDDEN1</p><p>SHOWN1</p>`],
  ["var() fallback", `<style>.a{display:var(--missing, none)}</style><p class="a">HIDDEN1</p><p>SHOWN1</p>`],
  [
    "custom property inherited from an ancestor",
    `<style>.w{--o:0}.w p{opacity:var(--o)}</style><div class="w"><p>HIDDEN1</p></div><p>SHOWN1</p>`,
  ],
  [
    "@property initial value",
    `<style>@property --c{syntax:'<color>';inherits:true;initial-value:#ffffff}.a{color:var(--c)}</style><p class="a">HIDDEN1</p><p>SHOWN1</p>`,
  ],
  ["quirks mode: class names fold case", `<style>.HIDE{display:none}</style><p class="hide">HIDDEN1</p><p>SHOWN1</p>`],
  // Values.
  ["opacity compounds over ancestors", `<div style="opacity:0.2"><p style="opacity:0.2">HIDDEN1</p></div><p>SHOWN1</p>`],
  ["-webkit-text-fill-color transparent", `<p style="-webkit-text-fill-color:transparent">HIDDEN1</p><p>SHOWN1</p>`],
  ["transform translateX off the page", `<div style="transform:translateX(-9999px)">HIDDEN1</div><p>SHOWN1</p>`],
  ["translate property off the page", `<div style="translate:0 -9999px">HIDDEN1</div><p>SHOWN1</p>`],
  ["scale property 0", `<div style="scale:0">HIDDEN1</div><p>SHOWN1</p>`],
  ["content-visibility hidden", `<div style="content-visibility:hidden">HIDDEN1</div><p>SHOWN1</p>`],
  ["zero line-height in a clipping box", `<div style="line-height:0;overflow:hidden">HIDDEN1</div><p>SHOWN1</p>`],
  ["hwb() white", `<p style="color:hwb(0 100% 0%)">HIDDEN1</p><p>SHOWN1</p>`],
  ["4-digit hex with zero alpha", `<p style="color:#0000">HIDDEN1</p><p>SHOWN1</p>`],
  [
    "sr-only pattern",
    `<span style="position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0,0,0,0)">HIDDEN1</span><p>SHOWN1</p>`,
  ],
  [
    "white text in a standards-mode table inherits",
    `${STD}<div style="color:#fff"><table><tr><td>HIDDEN1</td></tr></table></div><p>SHOWN1</p>`,
  ],
  ["closed <details>", `<details><summary>SHOWN1</summary><p>HIDDEN1</p>HIDDEN2</details><p>SHOWN2</p>`],
  ["<noembed> and <noframes>", `<p>SHOWN1</p><noembed>HIDDEN1</noembed><noframes>HIDDEN2</noframes>`],
  ["<datalist> options", `<datalist id="d"><option>HIDDEN1</option></datalist><p>SHOWN1</p>`],
  ["<dialog> not open", `<dialog><p>HIDDEN1</p></dialog><p>SHOWN1</p>`],
  ["<a> without href keeps white text white", `<div style="color:#fff"><a name="x">HIDDEN1</a></div><p>SHOWN1</p>`],
  ["turned edge-on", `<div style="transform:rotateY(90deg)">HIDDEN1</div><p>SHOWN1</p>`],
  ["clip-path polygon of no area", `<p style="clip-path:polygon(0 0, 50% 50%, 100% 100%)">HIDDEN1</p><p>SHOWN1</p>`],
  [
    "animation that ends hidden (fill-mode forwards)",
    `<style>@keyframes h{to{opacity:0}}.a{animation:h 0s forwards}</style><p class="a">HIDDEN1</p><p>SHOWN1</p>`,
  ],
  [
    "long animation hidden from first to last frame",
    `<style>@keyframes h{from{color:#fff}to{color:#fff}}.a{animation:h 100s infinite}</style><p class="a">HIDDEN1</p><p>SHOWN1</p>`,
  ],
  [
    "unresolvable var() on a link inherits white, not link blue",
    `<div style="color:#fff"><a href="https://example.test/" style="color:var(--none)">HIDDEN1</a></div><p>SHOWN1</p>`,
  ],
  ["data: stylesheet link", `<link rel="stylesheet" href="data:text/css,.a%7Bdisplay:none%7D"><p class="a">HIDDEN1</p><p>SHOWN1</p>`],
  [
    "base64 data: stylesheet link",
    `<link rel="stylesheet" href="data:text/css;base64,${btoa(".a{color:#fff}")}"><p class="a">HIDDEN1</p><p>SHOWN1</p>`,
  ],
  // Look-alikes that a person sees.
  ["data: stylesheet for print", `<link rel="stylesheet" media="print" href="data:text/css,.a%7Bdisplay:none%7D"><p class="a">SHOWN1</p>`],
  ["animation over at once that keeps nothing", `<style>@keyframes h{to{opacity:0}}.a{animation:h 0s}</style><p class="a">SHOWN1</p>`],
  [
    "!important beats an animation",
    `<style>@keyframes h{to{opacity:0}}.a{animation:h 0s forwards;opacity:1!important}</style><p class="a">SHOWN1</p>`,
  ],
  ["<font size> restores text inside a zero font size", `<td style="font-size:0"><font size="2">SHOWN1</font></td>`],
  ["<mark> paints its own colours", `<div style="color:#fff"><mark>SHOWN1</mark></div>`],
  ["a link in white text is drawn in link blue", `<div style="color:#fff"><a href="https://example.test/">SHOWN1</a></div>`],
  ["open <details>", `<details open><summary>SHOWN1</summary><p>SHOWN2</p></details>`],
  ["open <dialog>", `<dialog open><p>SHOWN1</p></dialog>`],
  ["@media print", `<style>@media print{.a{display:none}}</style><p class="a">SHOWN1</p>`],
  ["@media max-width below the screen", `<style>@media screen and (max-width:600px){.a{display:none}}</style><p class="a">SHOWN1</p>`],
  ["@media not screen", `<style>@media not screen{.a{display:none}}</style><p class="a">SHOWN1</p>`],
  ["@media portrait", `<style>@media (orientation:portrait){.a{display:none}}</style><p class="a">SHOWN1</p>`],
  ["@supports with an unknown value", `<style>@supports (display:nonsense){.a{display:none}}</style><p class="a">SHOWN1</p>`],
  ["<style media=print>", `<style media="print">.a{display:none}</style><p class="a">SHOWN1</p>`],
  [":first-child on a second child", `<style>p:first-child{display:none}</style><div><b>SHOWN1</b><p>SHOWN2</p></div>`],
  ["child combinator on a grandchild", `<style>div > span{display:none}</style><div><b><span>SHOWN1</span></b></div>`],
  ["attribute value that differs", `<style>[data-k="other"]{display:none}</style><p data-k="v">SHOWN1</p>`],
  ["later rule restores", `<style>.a{display:none}.a{display:block}</style><p class="a">SHOWN1</p>`],
  ["id beats class", `<style>#i{display:block}.a{display:none}</style><p class="a" id="i">SHOWN1</p>`],
  ["inline beats a normal rule", `<style>.a{display:none}</style><p class="a" style="display:block">SHOWN1</p>`],
  ["layered rule loses to unlayered", `<style>.a{display:block}@layer l{#i.a{display:none}}</style><p class="a" id="i">SHOWN1</p>`],
  ["pseudo-element rule", `<style>.a::after{content:"";display:none}</style><p class="a">SHOWN1</p>`],
  [":focus and :hover rules", `<style>.a:focus{display:none}.a:hover{color:#fff}</style><p class="a">SHOWN1</p>`],
  ["one invalid selector drops the whole rule", `<style>.a, .a:nonsense{display:none}</style><p class="a">SHOWN1</p>`],
  ["undefined custom property leaves colour inherited", `<style>.a{color:var(--nothing)}</style><p class="a">SHOWN1</p>`],
  ["standards mode: class names keep case", `${STD}<style>.HIDE{display:none}</style><p class="hide">SHOWN1</p>`],
  ["height 0 and overflow hidden on an inline span", `<span style="height:0;overflow:hidden">SHOWN1</span>`],
  ["transform scale(0) on an inline span", `<span style="transform:scale(0)">SHOWN1</span>`],
  ["max-height 0 and overflow hidden on a table cell", `<table><tr><td style="max-height:0;overflow:hidden">SHOWN1</td></tr></table>`],
  ["negative margin on a table cell", `<table><tr><td style="margin-left:-9999px">SHOWN1</td></tr></table>`],
  [
    "white text on a dark custom-property background",
    `<style>.w{--bg:#111;background:var(--bg);color:#fff}</style><div class="w">SHOWN1</div>`,
  ],
  ["quirks mode: a table resets the inherited colour", `<div style="color:#fff"><table><tr><td>SHOWN1</td></tr></table></div>`],
  [
    "quirks mode: a table takes <body text>'s colour",
    `<body text="#ffffff"><table><tr><td>HIDDEN1</td></tr></table><p style="color:#000">SHOWN1</p></body>`,
  ],
  ["quirks mode: white body text in a black cell", `<body text="#ffffff"><table><tr><td bgcolor="#000000">SHOWN1</td></tr></table></body>`],
  ["text-fill overrides white colour", `<p style="color:#fff;-webkit-text-fill-color:#222">SHOWN1</p>`],
  ["small translate", `<div style="transform:translateX(20px)">SHOWN1</div>`],
  ["half opacity twice", `<div style="opacity:0.5"><p style="opacity:0.5">SHOWN1</p></div>`],
];

export const wordsOf = (html: string, kind: "HIDDEN" | "SHOWN"): string[] => [...new Set(html.match(new RegExp(`${kind}\\d`, "g")) ?? [])];
