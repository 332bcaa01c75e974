"use strict";
// What the dashboard shows beyond SQS: the page that asks for the admin token.

// -- the admin token ----------------------------------------------------------------------

function showTokenPage(asked) {
  const shown = !$("token-page").hidden;
  $("token-page").hidden = !asked;
  document.querySelector("main").hidden = asked;
  if (asked && !shown) {
    $("token-refused").hidden = !sessionStorage.getItem(TOKEN_KEY);  // a token was tried, and refused
    $("token-input").focus();
  }
}

$("token-form").addEventListener("submit", (event) => {
  event.preventDefault();
  sessionStorage.setItem(TOKEN_KEY, $("token-input").value.trim());
  $("token-input").value = "";
  $("token-page").hidden = true;        // shown again, with "refused", if the emulator refuses it
  refresh();
});
